// The sentences `record` prints and stores about a recording (record_summary.hpp), from the record files.
#include "profiler/record/recorder/record_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "core/command_line.hpp"
#include "core/stats.hpp"
#include "profiler/record/kernel_naming.hpp"

namespace gpuperf::record {
namespace {

std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

// A G line's identity for people: "<mangled> gx gy gz bx by bz range" -> "gemm 8x1x1 128x1x1".
std::string given_up_identity(const std::string& identity) {
  const std::size_t space = identity.find(' ');
  std::string out = kernel_name(identity.substr(0, space), KernelNaming::function);
  unsigned v[7] = {0, 0, 0, 0, 0, 0, 0};
  if (space != std::string::npos && std::sscanf(identity.c_str() + space, "%u %u %u %u %u %u %u", &v[0], &v[1], &v[2],
                                                &v[3], &v[4], &v[5], &v[6]) >= 6) {
    out += " " + std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]) + " " +
           std::to_string(v[3]) + "x" + std::to_string(v[4]) + "x" + std::to_string(v[5]);
  }
  return out;
}

// 7217 -> "7,217".
std::string thousands(std::uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// How long profiling held the program (W lines), with the identity that took longest; "" without W lines.
std::string describe_profile_time(const std::vector<ProcessRecord>& processes) {
  struct Identity {
    std::uint64_t launches = 0, ns = 0;
  };
  std::map<std::string, Identity> by_identity;  // "<function> [<nvtx>] <grid> <block>"
  std::uint64_t launches = 0, total_ns = 0;
  for (const auto& p : processes) {
    for (const auto& l : p.launches) {
      if (l.profile_ns == 0) continue;
      ++launches;
      total_ns += l.profile_ns;
      std::string key = kernel_name(std::string(l.name), KernelNaming::function);
      if (!l.nvtx_path.empty()) key += " [" + std::string(l.nvtx_path) + "]";
      key += " " + dims(l.grid) + " " + dims(l.block);
      Identity& i = by_identity[key];
      ++i.launches;
      i.ns += l.profile_ns;
    }
  }
  if (launches == 0) return "";
  auto slowest = by_identity.begin();
  for (auto it = by_identity.begin(); it != by_identity.end(); ++it) {
    if (it->second.ns > slowest->second.ns) slowest = it;
  }
  return "; profiling took " + seconds_text(static_cast<double>(total_ns) * 1e-9) + " in " + std::to_string(launches) +
         " launches, the slowest identity " + slowest->first + ": " + std::to_string(slowest->second.launches) +
         " launches, " + seconds_text(static_cast<double>(slowest->second.ns) * 1e-9);
}

}  // namespace

// What the record files say went wrong: unreadable records, processes that did not flush, dropped records.
std::vector<std::string> record_warnings(const std::vector<ProcessRecord>& processes) {
  std::vector<std::string> out;
  std::uint64_t dropped = 0;
  for (const auto& p : processes) {
    for (const auto& e : p.errors) out.push_back("process " + std::to_string(p.pid) + ": " + e);
    if (!p.complete) {
      const bool flushed = p.last_flush_ns > 0 && p.last_flush_ns >= p.started_ns;
      const double flushed_s = flushed ? static_cast<double>(p.last_flush_ns - p.started_ns) * 1e-9 : 0.0;
      out.push_back("process " + std::to_string(p.pid) + " ended without flushing its records (killed?): " +
                    std::to_string(p.launches.size()) + " launches kept" +
                    (flushed ? ", flushed up to " + seconds_text(flushed_s) + " after it started; later ones are lost"
                             : "; nothing was flushed before it ended"));
    }
    for (const auto& g : p.given_up) {
      out.push_back("process " + std::to_string(p.pid) + ": profiling of launch " + std::to_string(g.correlation) +
                    " (" + given_up_identity(g.identity) + ") was given up after " +
                    seconds_text(static_cast<double>(g.ms) * 1e-3) +
                    " (--profile-watchdog-ms); no launch after it was profiled");
    }
    std::uint64_t unfinished = 0;
    std::string last;
    for (const auto& l : p.launches) {
      if (!l.unfinished) continue;
      ++unfinished;
      last = kernel_name(std::string(l.name), KernelNaming::function);
    }
    if (unfinished > 0)
      out.push_back("process " + std::to_string(p.pid) + ": " + std::to_string(unfinished) +
                    " launch(es) had not finished when it ended (the last of them " + last +
                    "): stored as launches without a duration");
    dropped += p.dropped;
  }
  if (dropped > 0) out.push_back("CUPTI dropped " + std::to_string(dropped) + " kernel records (buffers full)");
  return out;
}

std::string describe_excluded(const std::vector<ProcessRecord>& processes) {
  std::vector<std::string> kernels;  // function names, each once
  for (const auto& p : processes) {
    for (const std::string& mangled : p.excluded) {
      std::string name = kernel_name(mangled, KernelNaming::function);
      if (std::find(kernels.begin(), kernels.end(), name) == kernels.end()) kernels.push_back(std::move(name));
    }
  }
  if (kernels.empty()) return "";
  std::string out =
      "; the selection (--kernel-regex, --nvtx-include, --launch-skip, --launch-count) kept launches of " +
      std::to_string(kernels.size()) + " kernel(s) out of profiling, traced only:";
  for (std::size_t i = 0; i < kernels.size() && i < 5; ++i) out += (i == 0 ? " " : ", ") + kernels[i];
  return out + (kernels.size() > 5 ? ", ..." : "");
}

std::string describe_lacking(const std::vector<Run>& runs) {
  std::map<std::string, std::vector<std::string>> by_set;  // "m1, m2" -> identities lacking exactly those
  for (const Run& run : runs) {
    for (const Result& r : run.results) {
      std::string set;
      for (const Measurement& m : r.metrics) {
        if (m.status == Status::skipped && m.message.rfind("partial counters", 0) == 0)
          set += (set.empty() ? "" : ", ") + m.metric.name;
      }
      if (!set.empty()) by_set[set].push_back(r.instance.display_name());
    }
  }
  if (by_set.empty()) return "";
  std::string out = "; partial identities lack";
  bool first = true;
  for (const auto& [set, identities] : by_set) {
    out += std::string(first ? " " : "; ") + set + " (" + std::to_string(identities.size()) + ": " +
           identities.front() + (identities.size() > 1 ? ", ..." : "") + ")";
    first = false;
  }
  return out +
         ": each profiled launch collects one group of the metrics, and their profiled launches ended before every "
         "group (launched fewer times than there are groups, or a budget ran out; --profile-groups 1 collects "
         "every metric in each profiled launch)";
}

Flushed flushed_of(const std::vector<ProcessRecord>& processes) {
  Flushed f;
  std::uint64_t first_start = 0, last_flush = 0;
  for (const auto& p : processes) {
    f.complete = f.complete && p.complete;
    f.launches += p.launches.size();
    if (p.started_ns > 0 && (first_start == 0 || p.started_ns < first_start)) first_start = p.started_ns;
    last_flush = std::max(last_flush, p.last_flush_ns);
  }
  if (last_flush > 0 && last_flush >= first_start) f.last_flush_s = static_cast<double>(last_flush - first_start) / 1e9;
  return f;
}

std::string nothing_recorded_reason(std::size_t processes, const Flushed& flushed, int exit_status,
                                    const std::string& inject_library) {
  if (processes == 0) return "it made no CUDA call (or the CUDA driver could not load " + inject_library + ")";
  if (flushed.complete) return "it launched no kernel";
  const std::string how = exit_status < 0 ? "it was killed (" + describe_exit_status(exit_status) + ")"
                                          : "it ended (" + describe_exit_status(exit_status) + ") without flushing";
  if (flushed.last_flush_s < 0)
    return how + " before anything was flushed (records reach the file every second): what it launched is lost";
  return how + ": no kernel launch was flushed up to " + seconds_text(flushed.last_flush_s) +
         " after it started, and what it launched later is lost";
}

std::string incomplete_message(const Flushed& flushed, int exit_status) {
  std::string out = "incomplete: the program ended (" + describe_exit_status(exit_status) +
                    ") before its last flush; " + std::to_string(flushed.launches) + " launches kept";
  if (flushed.last_flush_s >= 0)
    out += ", flushed up to " + seconds_text(flushed.last_flush_s) + " after it started; later ones are lost";
  return out;
}

std::string describe_profiled(const KernelTotals& totals, const std::vector<ProcessRecord>& processes,
                              std::uint64_t per_identity, bool source_lines) {
  // Partial ones count as identities with counters (what they collected is stored), and are told apart.
  const std::size_t with = totals.identities_with_counters + totals.identities_partial_counters;
  // Ranks of a distributed job (Y lines): one pass a launch, one metric group each of an identity's launches, and
  // what that cannot collect.
  std::size_t one_pass = 0, one_pass_groups = 0;
  std::vector<std::string> not_collected;
  // x lines: counters CUPTI failed to give, their groups collected again by a later launch of the identity.
  std::uint64_t lost = 0;
  std::string lost_first;
  for (const auto& p : processes) {
    if (lost == 0) lost_first = p.lost_first;
    lost += p.lost_counters;
    if (!p.one_pass) continue;
    ++one_pass;
    one_pass_groups = std::max(one_pass_groups, p.metric_groups.size());
    for (std::size_t j = 0; j < p.not_collected.size() && j < p.metric_names.size(); ++j) {
      if (p.not_collected[j] &&
          std::find(not_collected.begin(), not_collected.end(), p.metric_names[j]) == not_collected.end())
        not_collected.push_back(p.metric_names[j]);
    }
  }
  std::string out = "counters for " + std::to_string(with) + " of " + std::to_string(totals.identities) +
                    " identities (the first " + std::to_string(per_identity) + " launches of each are profiled";
  if (one_pass_groups > per_identity)
    out += ", " + std::to_string(one_pass_groups) + " where one pass a launch is replayed: one a metric group";
  out += ")";
  if (totals.identities_partial_counters > 0)  // each profiled launch collects one group of the metrics
    out += ", " + std::to_string(totals.identities_partial_counters) +
           " of them partial (their profiled launches did not cover every metric group)";
  const std::string profile_time = describe_profile_time(processes);
  if (one_pass > 0) {
    out += "; " + std::to_string(one_pass) +
           " process(es) replayed one pass a launch (a rank of a distributed job, or --profile-replay one-pass: "
           "nothing restored, so no peer's write is lost and each launch starts from the emptied L2)";
    if (!not_collected.empty()) {
      out += ": not collected there, needing more passes:";
      for (std::size_t i = 0; i < not_collected.size(); ++i) out += (i == 0 ? " " : ", ") + not_collected[i];
    }
    if (source_lines && totals.identities_partial_counters > 0)
      out +=
          " (with source lines a one-pass process begins the profiler's session for each profiled launch; "
          "--no-source-lines lets it keep the session, so its launches cost far less and more identities are "
          "whole)";
  }
  if (lost > 0)
    out += "; " + std::to_string(lost) + " profiled launch(es) lost their counters (" + lost_first +
           "), each one's group given back to a later launch of its identity (once an identity)";
  const std::size_t left = totals.identities - std::min(totals.identities, with);
  std::uint64_t budget = 0, time_budget_ms = 0;
  std::size_t unreplayed_ranks = 0, unreplayed_after_communication = 0;  // U lines
  std::string given_up;                                                  // the watchdog's first give-up
  std::uint64_t busy = 0, busy_ms = 0;  // launches not profiled: a communication kernel still running
  for (const auto& p : processes) {
    busy += p.communication_busy;
    busy_ms = std::max(busy_ms, p.communication_wait_ms);
    budget = std::max(budget, p.profile_budget_spent);
    unreplayed_ranks += p.unreplayed == "distributed" ? 1 : 0;
    unreplayed_after_communication += p.unreplayed == "communication" ? 1 : 0;
    time_budget_ms = std::max(time_budget_ms, p.profile_time_budget_ms);
    if (given_up.empty() && !p.given_up.empty()) {
      const GivenUp& g = p.given_up.front();
      given_up = "profiling was given up after " + seconds_text(static_cast<double>(g.ms) * 1e-3) + " in launch " +
                 std::to_string(g.correlation) + " of " + given_up_identity(g.identity) + " (process " +
                 std::to_string(p.pid) + "; --profile-watchdog-ms): nothing was profiled after it";
    }
  }
  const std::string waited = busy == 0 ? ""
                                       : std::to_string(busy) +
                                             " launch(es) were not profiled because a communication kernel was still " +
                                             "running after " + seconds_text(static_cast<double>(busy_ms) * 1e-3) +
                                             " (GPUPERF_RECORD_COMMUNICATION_WAIT_MS)";
  if (left == 0) {
    if (!waited.empty()) out += "; " + waited;
    if (!given_up.empty()) out += "; " + given_up;
    if (time_budget_ms > 0)
      out += "; the time budget of " + seconds_text(static_cast<double>(time_budget_ms) * 1e-3) +
             " of profiling was spent";
    return out + profile_time;
  }
  std::vector<std::string> why;
  if (totals.identities_communication > 0)
    why.push_back(std::to_string(totals.identities_communication) +
                  " are communication kernels (never profiled: a replay would wait for peers that have left the "
                  "collective)");
  if (!given_up.empty()) why.push_back(given_up);
  if (!waited.empty()) why.push_back(waited);
  if (totals.identities_graph_only > 0)
    why.push_back(std::to_string(totals.identities_graph_only) +
                  " ran only in CUDA graph replays (launches captured into a graph are not profiled)");
  if (unreplayed_ranks + unreplayed_after_communication > 0) {
    std::string which =
        unreplayed_ranks > 0
            ? std::to_string(unreplayed_ranks) + " process(es) are ranks of a distributed job"
            : std::to_string(unreplayed_after_communication) + " process(es) launched communication kernels";
    if (unreplayed_ranks > 0 && unreplayed_after_communication > 0)
      which += " and " + std::to_string(unreplayed_after_communication) + " launched communication kernels";
    why.push_back(which +
                  ", where kernel replay is not used (a replay of several passes restores memory that peers write "
                  "into, and a collective then waits forever; --profile-replay kernel replays anyway)");
  }
  if (budget > 0)
    why.push_back("the budget of " + std::to_string(budget) + " profiled launches was spent (--profile-budget)");
  if (time_budget_ms > 0)
    why.push_back("the time budget of " + seconds_text(static_cast<double>(time_budget_ms) * 1e-3) +
                  " of profiling was spent (--profile-seconds)");
  out += "; " + std::to_string(left) + " left unprofiled";
  for (std::size_t i = 0; i < why.size(); ++i) out += (i == 0 ? ": " : "; ") + why[i];
  return out + profile_time;
}

std::string describe_source_lines(const std::vector<Run>& runs, const KernelTotals& totals,
                                  const std::vector<ProcessRecord>& processes) {
  std::map<std::string, std::size_t> without;  // why -> identities
  for (const Run& run : runs) {
    for (const Result& r : run.results) {
      if (r.source.status != Status::ok) ++without[r.source.message];
    }
  }
  std::string out = "lines for " + std::to_string(totals.identities_with_lines) + " of " +
                    std::to_string(totals.identities) + " identities";
  std::size_t left = 0;
  for (const auto& [why, n] : without) left += n;
  if (left > 0) {
    out += "; " + std::to_string(left) + " without:";
    bool first = true;
    for (const auto& [why, n] : without) {
      out += (first ? " " : "; ") + std::to_string(n) + " " + (why.empty() ? "(no reason given)" : why);
      first = false;
    }
  }
  std::vector<std::uint64_t> ns;
  std::size_t unfinished = 0;
  for (const auto& p : processes) {
    if (!p.source) continue;
    for (const auto& [corr, l] : p.source->launches) {
      if (l.ns > 0) ns.push_back(l.ns);  // 0: cut off by the process's end
    }
    unfinished += p.source->unfinished;
  }
  if (!ns.empty()) {
    std::uint64_t total = 0;
    for (std::uint64_t v : ns) total += v;
    char text[160];
    std::snprintf(text, sizeof text,
                  "; %zu instrumented launches took %s, %.1f ms a launch (median), the slowest %.1f ms", ns.size(),
                  seconds_text(static_cast<double>(total) * 1e-9).c_str(),
                  median(std::vector<double>(ns.begin(), ns.end())) * 1e-6,
                  static_cast<double>(*std::max_element(ns.begin(), ns.end())) * 1e-6);
    out += text;
  }
  if (unfinished > 0)
    out += "; " + std::to_string(unfinished) + " instrumented launches were cut off (the process was killed)";
  return out;
}

std::string describe_own_work(const std::vector<ProcessRecord>& processes) {
  struct Sum {
    std::uint64_t calls = 0, items = 0, ns = 0;
  };
  std::map<std::pair<std::string, std::string>, Sum> sums;  // (thread, work)
  for (const auto& p : processes) {
    for (const auto& w : p.own_work) {
      Sum& s = sums[{w.thread, w.work}];
      s.calls += w.calls;
      s.items = w.work == "flush" ? std::max(s.items, w.items) : s.items + w.items;  // flush: the longest call
      s.ns += w.ns;
    }
  }
  if (sums.empty()) return "";
  auto ms = [](std::uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(ns) * 1e-6);
    return std::string(text);
  };
  auto part = [&](const std::string& thread, const std::string& work, const Sum& s, bool on_program) {
    std::string where;
    if (!on_program)
      where = thread == "cupti"     ? " on CUPTI's thread"
              : thread == "gpuperf" ? " on gpuperf's flush thread"
                                    : " on thread " + thread;
    if (work == "nvtx") return ms(s.ns) + " in " + thousands(s.calls) + " NVTX callbacks" + where;
    if (work == "write")
      return ms(s.ns) + " writing " + thousands(s.items) + " records (" + thousands(s.calls) + " buffers)" + where;
    if (work == "request") return ms(s.ns) + " in " + thousands(s.calls) + " buffer requests" + where;
    return ms(s.ns) + " in " + thousands(s.calls) + " " + work + " calls" + where;
  };
  std::uint64_t program_ns = 0, other_ns = 0, external_ns = 0, external_calls = 0;
  Sum flush;  // CUPTI's part of the periodic flush, beside the program: said apart, below
  std::string program, other;
  for (const auto& [key, s] : sums) {
    if (key.second == "external") {  // CUPTI's own call inside our NVTX callbacks: said apart, not ours
      external_ns += s.ns;
      external_calls += s.calls;
      continue;
    }
    if (key.second == "flush") {
      flush.ns += s.ns;
      flush.calls += s.calls;
      flush.items = std::max(flush.items, s.items);
      continue;
    }
    const bool on_program = key.first == "program";
    std::string& list = on_program ? program : other;
    list += (list.empty() ? "" : ", ") + part(key.first, key.second, s, on_program);
    (on_program ? program_ns : other_ns) += s.ns;
  }
  std::string out = "inside the program: " + ms(program_ns) + " on its threads" +
                    (program.empty() ? "" : " (" + program + ")") + "; " + ms(other_ns) + " on other threads" +
                    (other.empty() ? "" : " (" + other + ")");
  if (external_calls > 0)
    out += "; besides, CUPTI's push and pop of the NVTX paths' external ids took " + ms(external_ns) + " in " +
           thousands(external_calls) + " of those callbacks (CUPTI's cost, which the bare tracer pays too)";
  if (flush.calls > 0)
    out += "; CUPTI's part of the periodic flush took " + ms(flush.ns) + " in " + thousands(flush.calls) +
           " calls on gpuperf's flush thread (the longest " + ms(flush.items) + ")";
  return out;
}

}  // namespace gpuperf::record
