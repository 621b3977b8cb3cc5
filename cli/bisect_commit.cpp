#include "cli/bisect_commit.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/subprocess.hpp"
#include "core/errors.hpp"
#include "db/interchange.hpp"
#include "reports/analysis/bisect_rule.hpp"

namespace gpuperf::cli {
namespace {

using nlohmann::json;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string in_worktree(const BisectConfig& cfg, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return cfg.worktree + "/" + path;
}

// The last `n` lines of `text`, for a message.
std::string tail_lines(const std::string& text, std::size_t n) {
  std::size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;
  std::size_t start = end;
  for (std::size_t lines = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++lines == n) break;
  }
  return text.substr(start, end - start);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

bool covers(const Run& run, const std::regex& re, const std::string& metric) {
  for (const Result& r : run.results) {
    if (std::regex_search(r.instance.display_name(), re) && r.find(metric) != nullptr) return true;
  }
  return false;
}

int decide(const BisectConfig& cfg, const db::Store& store, const std::vector<std::int64_t>& runs, CommitStep& step) {
  const Run good = store.load_run(cfg.good_run), bad = store.load_run(cfg.bad_run);
  const analysis::CompareOptions options = cfg.compare_options();
  const auto tracked = analysis::reproduced_changes(good, bad, cfg.metric, options);
  int verdict = -1;
  for (std::int64_t id : runs) {
    const analysis::CommitDecision d = analysis::decide_commit(good, bad, store.load_run(id), tracked, options);
    step.why = d.why;
    if (d.verdict == analysis::BisectVerdict::good) verdict = kStepGood;
    if (d.verdict == analysis::BisectVerdict::bad) verdict = kStepBad;
    if (d.verdict == analysis::BisectVerdict::skip) verdict = kStepSkip;
  }
  return verdict;
}

const char* verdict_name(int code) {
  return code == kStepGood ? "good" : code == kStepBad ? "bad" : code == kStepSkip ? "skip" : "abort";
}

}  // namespace

std::string BisectConfig::to_json() const {
  return json{{"db", db_path},        {"worktree", worktree}, {"scratch", scratch},
              {"build", build},       {"bench", bench},       {"record", record},
              {"self", self},         {"filter", filter},     {"metric", metric},
              {"metrics", metrics},   {"device", device},     {"quick", quick},
              {"tries", tries},       {"alpha", alpha},       {"thresholds", thresholds},
              {"good_run", good_run}, {"bad_run", bad_run},   {"fingerprint", fingerprint},
              {"hostname", hostname}}
      .dump();
}

BisectConfig BisectConfig::from_file(const std::string& path) {
  BisectConfig c;
  try {
    const json j = json::parse(slurp(path));
    j.at("db").get_to(c.db_path);
    j.at("worktree").get_to(c.worktree);
    j.at("scratch").get_to(c.scratch);
    j.at("build").get_to(c.build);
    j.at("bench").get_to(c.bench);
    j.at("record").get_to(c.record);
    j.at("self").get_to(c.self);
    j.at("filter").get_to(c.filter);
    j.at("metric").get_to(c.metric);
    j.at("metrics").get_to(c.metrics);
    j.at("device").get_to(c.device);
    j.at("quick").get_to(c.quick);
    j.at("tries").get_to(c.tries);
    j.at("alpha").get_to(c.alpha);
    j.at("thresholds").get_to(c.thresholds);
    j.at("good_run").get_to(c.good_run);
    j.at("bad_run").get_to(c.bad_run);
    j.at("fingerprint").get_to(c.fingerprint);
    j.at("hostname").get_to(c.hostname);
  } catch (const json::exception& e) {
    throw InputError(path + ": not a bisect state file (" + e.what() + ")");
  }
  return c;
}

analysis::CompareOptions BisectConfig::compare_options() const {
  analysis::CompareOptions o;
  o.thresholds.alpha = alpha;
  for (const auto& spec : thresholds) o.thresholds.apply(spec);
  o.history_runs = 0;  // a commit is placed between the two ends, not against the branch's past
  return o;
}

void append_step(const BisectConfig& cfg, const CommitStep& s) {
  std::ofstream f(cfg.step_log(), std::ios::app);
  f << json{{"commit", s.commit},     {"built", s.built},     {"build_failed", s.build_failed},
            {"measured", s.measured}, {"reused", s.reused},   {"verdict", s.verdict},
            {"why", s.why},           {"build_s", s.build_s}, {"measure_s", s.measure_s}}
           .dump()
    << '\n';
}

std::vector<CommitStep> read_steps(const BisectConfig& cfg) {
  std::vector<CommitStep> out;
  std::istringstream lines(slurp(cfg.step_log()));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    CommitStep s;
    s.commit = j.value("commit", "");
    s.built = j.value("built", false);
    s.build_failed = j.value("build_failed", false);
    s.measured = j.value("measured", std::vector<std::int64_t>{});
    s.reused = j.value("reused", std::vector<std::int64_t>{});
    s.verdict = j.value("verdict", "");
    s.why = j.value("why", "");
    s.build_s = j.value("build_s", 0.0);
    s.measure_s = j.value("measure_s", 0.0);
    out.push_back(std::move(s));
  }
  return out;
}

bool build_commit(const BisectConfig& cfg, const std::string& sha, CommitStep& step, std::string* failure) {
  const auto t0 = std::chrono::steady_clock::now();
  ProcessOptions o;
  o.cwd = cfg.worktree;
  o.out_path = cfg.scratch + "/build-" + sha.substr(0, 12) + ".log";
  o.err_path = o.out_path;
  // One build folder is reused from commit to commit (the worktree stays); ccache, where installed, is
  // offered to CMake builds through its launcher variables.
  if (std::system("command -v ccache >/dev/null 2>&1") == 0) {
    o.env["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache";
    o.env["CMAKE_CUDA_COMPILER_LAUNCHER"] = "ccache";
    o.env["CMAKE_C_COMPILER_LAUNCHER"] = "ccache";
  }
  const ProcessResult r = run_process({"sh", "-c", cfg.build}, o);
  step.built = true;
  step.build_s += seconds_since(t0);
  if (r.exit_code == 0) return true;
  step.build_failed = true;
  if (failure != nullptr) {
    *failure = "the build command exited " + std::to_string(r.exit_code) + " at " + sha.substr(0, 12) + ":\n" +
               tail_lines(slurp(o.out_path), 15);
  }
  return false;
}

std::optional<Run> measure_commit(const BisectConfig& cfg, const std::string& sha, CommitStep& step,
                                  std::string* failure) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string scratch_db = cfg.scratch + "/bench.db";
  std::vector<std::string> argv;
  const std::vector<std::string> identity{"--commit", sha,          "--branch", kBisectLabel,
                                          "--label",  kBisectLabel, "--format", "json"};
  if (!cfg.record.empty()) {
    argv = {cfg.self, "--db", scratch_db, "--quiet", "record", "--metrics", cfg.metrics};
    if (!cfg.filter.empty()) argv.insert(argv.end(), {"--kernel-regex", cfg.filter});
    argv.insert(argv.end(), identity.begin(), identity.end());
    argv.push_back("--");
    argv.push_back(in_worktree(cfg, cfg.record.front()));
    argv.insert(argv.end(), cfg.record.begin() + 1, cfg.record.end());
  } else {
    argv = {in_worktree(cfg, cfg.bench), "--db",     scratch_db, "--quiet",   "run",      "--device",
            std::to_string(cfg.device),  "--filter", cfg.filter, "--metrics", cfg.metrics};
    if (cfg.quick) argv.push_back("--quick");
    argv.insert(argv.end(), identity.begin(), identity.end());
  }
  ProcessOptions o;
  o.cwd = cfg.worktree;
  o.err_path = cfg.scratch + "/measure-" + sha.substr(0, 12) + ".err";
  const ProcessResult r = run_process(argv, o);
  std::error_code ec;
  // The bench is of that commit's gpuperf: its own database may have any schema; only its JSON is read.
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(scratch_db + suffix, ec);
  step.measure_s += seconds_since(t0);
  const std::string err = slurp(o.err_path);
  if (r.exit_code == kExitEnvironment) {
    throw EnvironmentError("the bench cannot measure here (exit 3) at " + sha.substr(0, 12) + ": " +
                           tail_lines(err, 5));
  }
  std::vector<Run> runs;
  if (r.exit_code == kExitOk || r.exit_code == kExitIncorrect || r.exit_code == kExitProgramFailed) {
    try {
      runs = db::parse_interchange(r.out, "the bench's output at " + sha.substr(0, 12));
    } catch (const Error& e) {
      if (failure != nullptr) *failure = e.what();
      return std::nullopt;
    }
  }
  if (runs.empty()) {
    if (failure != nullptr) {
      *failure = "the bench exited " + std::to_string(r.exit_code) + " at " + sha.substr(0, 12) + " without a run:\n" +
                 tail_lines(err, 10);
    }
    return std::nullopt;
  }
  Run run = std::move(runs.front());
  run.commit = sha;
  run.label = kBisectLabel;
  return run;
}

std::vector<std::int64_t> stored_runs(const BisectConfig& cfg, const db::Store& store, const std::string& sha) {
  std::regex re;
  try {
    re = std::regex(cfg.filter, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError("--filter '" + cfg.filter + "' is not a valid regular expression: " + e.what());
  }
  std::vector<std::int64_t> out;
  for (const db::RunInfo& info : store.runs()) {
    if (info.label != kBisectLabel || info.commit != sha || info.excluded) continue;
    if (!cfg.fingerprint.empty() ? info.fingerprint != cfg.fingerprint : info.hostname != cfg.hostname) continue;
    if (covers(store.load_run(info.id, false), re, cfg.metric)) out.push_back(info.id);
  }
  return out;
}

int bisect_step(const BisectConfig& cfg) {
  CommitStep step;
  int code = kStepAbort;
  try {
    ProcessOptions o;
    o.cwd = cfg.worktree;
    step.commit = run_process({"git", "rev-parse", "HEAD"}, o).out.substr(0, 40);
    db::Store store(cfg.db_path, db::Access::read_write);
    step.reused = stored_runs(cfg, store, step.commit);
    code = decide(cfg, store, step.reused, step);
    std::size_t tries = step.reused.size();
    while (code < 0 && tries < static_cast<std::size_t>(cfg.tries)) {
      std::string failure;
      if (!step.built && !build_commit(cfg, step.commit, step, &failure)) {
        step.why = failure;
        code = kStepSkip;
        break;
      }
      const std::optional<Run> run = measure_commit(cfg, step.commit, step, &failure);
      ++tries;
      if (!run) {
        step.why = failure;
        code = kStepSkip;
        break;
      }
      const std::int64_t id = store.insert_run(*run).run_id;
      step.measured.push_back(id);
      code = decide(cfg, store, {id}, step);
    }
    if (code < 0) {
      step.why = "ambiguous after " + std::to_string(tries) + " measurement(s): " + step.why;
      code = kStepSkip;
    }
  } catch (const std::exception& e) {
    step.why = std::string("error: ") + e.what();
    code = kStepAbort;
  }
  if (interrupted() != 0) {
    step.why = "interrupted (signal " + std::to_string(interrupted()) + ")";
    code = kStepAbort;
  }
  step.verdict = verdict_name(code);
  append_step(cfg, step);
  return code;
}

}  // namespace gpuperf::cli
