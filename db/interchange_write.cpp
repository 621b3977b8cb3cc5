// Writing the interchange format. Keys in a fixed order, one run per line; doubles are written in their
// shortest exact form, so export(import(x)) gives back the same numbers.
#include <ostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "db/answers_json.hpp"
#include "db/interchange.hpp"
#include "db/interchange_source.hpp"
#include "db/source_lines.hpp"

namespace gpuperf::db {
namespace {

using ojson = nlohmann::ordered_json;

ojson params_to_json(const Params& params) {
  ojson j = ojson::object();
  for (const auto& [k, v] : params) {
    std::visit([&](const auto& x) { j[k] = x; }, v);
  }
  return j;
}

ojson measurement_to_json(const Measurement& m) {
  ojson j;
  j["unit"] = m.metric.unit;
  j["better"] = m.metric.higher_is_better ? "higher" : "lower";
  j["deterministic"] = m.metric.deterministic;
  if (m.status != Status::ok) j["status"] = to_string(m.status);
  if (!m.message.empty()) j["message"] = m.message;
  if (m.samples.size() == 1 && m.sm_clock_mhz.empty()) {
    j["value"] = m.samples.front();
  } else if (!m.samples.empty()) {
    j["samples"] = m.samples;
    if (!m.sm_clock_mhz.empty()) j["sm_clock_mhz"] = m.sm_clock_mhz;
  }
  if (m.samples.empty() && m.summary.n > 1) j["samples_pruned"] = true;  // `gpuperf db prune`: the summary is all
  if (m.summary.n > 1) {
    // For readers of the file; an import recomputes it from the samples (or, pruned, keeps it).
    const Summary& s = m.summary;
    j["summary"] = ojson{{"n", s.n},     {"median", s.median}, {"mean", s.mean}, {"min", s.min},
                         {"max", s.max}, {"q1", s.q1},         {"q3", s.q3},     {"stdev", s.stdev}};
  }
  return j;
}

ojson run_to_json(const Run& run) {
  ojson j;
  j["uuid"] = run.uuid;
  j["started_at"] = run.started_at;
  j["finished_at"] = run.finished_at;
  j["commit"] = run.commit;
  j["branch"] = run.branch;
  j["label"] = run.label;
  j["tool_version"] = run.tool_version;
  j["status"] = to_string(run.status);
  j["excluded"] = run.excluded;
  if (run.excluded) j["exclude_reason"] = run.exclude_reason;
  // A recorded run's program; absent for benchmark runs, whose files stay as they were before record.
  if (!run.command.empty()) j["command"] = run.command;
  if (run.exit_status) j["exit_status"] = *run.exit_status;
  // A recorded process's place in a distributed job; absent for everything else, as command is.
  if (run.rank) j["rank"] = *run.rank;
  if (run.local_rank) j["local_rank"] = *run.local_rank;
  if (run.world_size) j["world_size"] = *run.world_size;
  const Machine& m = run.machine;
  j["machine"] = ojson{{"hostname", m.hostname}, {"gpu_name", m.gpu_name}, {"gpu_uuid", m.gpu_uuid}, {"cc", m.cc},
                       {"sm_count", m.sm_count}, {"driver", m.driver},     {"cuda", m.cuda}};
  // What the run ran with (core/environment.hpp); absent for runs that recorded none.
  if (!run.environment.empty()) j["environment"] = run.environment;
  ojson results = ojson::array();
  for (const Result& r : run.results) {
    ojson x;
    x["benchmark"] = r.instance.name;
    x["params"] = params_to_json(r.instance.params);
    x["status"] = to_string(r.status);
    if (!r.message.empty()) x["message"] = r.message;
    if (!r.baseline.empty()) x["baseline"] = r.baseline;
    ojson metrics = ojson::object();
    for (const Measurement& meas : r.metrics) metrics[meas.metric.name] = measurement_to_json(meas);
    x["metrics"] = std::move(metrics);
    if (has_source_lines(r.source)) x["source"] = source_lines_to_json(r.source);
    if (!r.code.empty()) x["code"] = ojson{{"fingerprint", r.code.fingerprint}, {"launch", r.code.launch}};
    results.push_back(std::move(x));
  }
  j["results"] = std::move(results);
  return j;
}

}  // namespace

std::string run_to_interchange(const Run& run) {
  // Invalid UTF-8 in a message (a driver's error text) is replaced, not fatal.
  return run_to_json(run).dump(-1, ' ', false, ojson::error_handler_t::replace);
}

InterchangeWriter::InterchangeWriter(std::ostream& out) : out_(out) {
  out_ << "{\"format\":\"" << kInterchangeFormat << "\",\"version\":" << kInterchangeVersion << ",\"runs\":[";
}

void InterchangeWriter::add(const Run& run) {
  out_ << (count_ == 0 ? "\n" : ",\n") << run_to_interchange(run);
  ++count_;
}

void InterchangeWriter::finish(const Answers& answers) {
  if (finished_) return;
  out_ << "\n]";
  const auto dump = [](const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (!answers.acks.empty()) out_ << ",\n\"acknowledgements\":" << dump(acknowledgements_json(answers.acks));
  if (!answers.notes.empty()) out_ << ",\n\"annotations\":" << dump(annotations_json(answers.notes));
  out_ << "}\n";
  out_.flush();
  finished_ = true;
}

std::string to_interchange(const std::vector<Run>& runs) {
  std::ostringstream out;
  InterchangeWriter w(out);
  for (const Run& r : runs) w.add(r);
  w.finish();
  return out.str();
}

}  // namespace gpuperf::db
