#include "db/import_export.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "db/answers_transfer.hpp"
#include "db/interchange.hpp"
#include "db/new_file.hpp"

namespace gpuperf::db {

ParsedFiles read_interchange_files(const std::vector<std::string>& paths) {
  ParsedFiles parsed;
  for (const std::string& p : paths) {
    InterchangeDocument doc = read_interchange_document(p);
    std::vector<Run>& runs = doc.runs;
    parsed.files += 1;
    const std::string file = p == "-" ? std::string("<stdin>") : p;
    for (std::size_t i = 0; i < doc.answers.acks.size(); ++i) {
      parsed.ack_sources.push_back(file + ": acknowledgements[" + std::to_string(i) + "]");
    }
    for (std::size_t i = 0; i < doc.answers.notes.size(); ++i) {
      parsed.note_sources.push_back(file + ": annotations[" + std::to_string(i) + "]");
    }
    parsed.answers.acks.insert(parsed.answers.acks.end(), doc.answers.acks.begin(), doc.answers.acks.end());
    parsed.answers.notes.insert(parsed.answers.notes.end(), doc.answers.notes.begin(), doc.answers.notes.end());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      parsed.sources.push_back(file + ": runs[" + std::to_string(i) + "]");
      parsed.runs.push_back(std::move(runs[i]));
    }
  }
  check_metric_meanings(parsed, {});
  return parsed;
}

void check_metric_meanings(const ParsedFiles& parsed, const std::vector<MetricInfo>& stored) {
  // Paths are built only for a message: an import of a year holds about a million metric results.
  auto path_of = [&](std::size_t run, std::size_t result, const std::string& name) {
    const std::string at_run = run < parsed.sources.size() ? parsed.sources[run] : "run " + parsed.runs[run].uuid;
    return at_run + ".results[" + std::to_string(result) + "].metrics." + name;
  };
  struct Known {
    MetricInfo info;
    std::size_t run = 0, result = 0;
    bool in_database = false;
  };
  std::map<std::string, Known> known;
  for (const MetricInfo& m : stored) known.emplace(m.name, Known{m, 0, 0, true});
  for (std::size_t i = 0; i < parsed.runs.size(); ++i) {
    const Run& run = parsed.runs[i];
    for (std::size_t j = 0; j < run.results.size(); ++j) {
      for (const Measurement& m : run.results[j].metrics) {
        const MetricInfo& x = m.metric;
        auto [it, fresh] = known.emplace(x.name, Known{x, i, j, false});
        if (fresh) continue;
        const Known& k = it->second;
        auto refuse = [&](const std::string& field, const std::string& got, const std::string& want) {
          const std::string said = k.in_database ? "the database" : path_of(k.run, k.result, x.name);
          throw InputError(path_of(i, j, x.name) + "." + field + ": metric '" + x.name + "' " + got + ", but " + said +
                           " " + want + " (one metric name, one meaning)");
        };
        if (x.unit != k.info.unit) refuse("unit", "is in '" + x.unit + "'", "has it in '" + k.info.unit + "'");
        if (x.higher_is_better != k.info.higher_is_better) {
          refuse("better", std::string("is better ") + (x.higher_is_better ? "higher" : "lower"),
                 std::string("has it better ") + (k.info.higher_is_better ? "higher" : "lower"));
        }
        if (x.deterministic != k.info.deterministic) {
          refuse("deterministic", x.deterministic ? "is deterministic" : "is not deterministic",
                 k.info.deterministic ? "has it deterministic" : "has it not deterministic");
        }
      }
    }
  }
}

namespace {

// What differs between a stored run and a run of the same uuid that arrives again; empty when they agree
// (by their fields, machine, instances, metrics and each metric's count, median, min and max).
std::string run_difference(const Run& stored, const Run& arrived) {
  const auto field = [](const char* name, const std::string& a, const std::string& b) {
    return a == b ? std::string() : std::string(name) + " \"" + a + "\" stored, \"" + b + "\" arriving";
  };
  for (const std::string& d :
       {field("started_at", stored.started_at, arrived.started_at), field("commit", stored.commit, arrived.commit),
        field("branch", stored.branch, arrived.branch), field("label", stored.label, arrived.label),
        field("machine", stored.machine.fingerprint(), arrived.machine.fingerprint())}) {
    if (!d.empty()) return d;
  }
  std::map<std::string, const Measurement*> kept;
  for (const Result& r : stored.results) {
    for (const Measurement& m : r.metrics) kept[r.instance.display_name() + " " + m.metric.name] = &m;
  }
  std::size_t arrived_rows = 0;
  for (const Result& r : arrived.results) {
    for (const Measurement& m : r.metrics) {
      ++arrived_rows;
      const std::string key = r.instance.display_name() + " " + m.metric.name;
      const auto it = kept.find(key);
      if (it == kept.end()) return key + " is not in the stored run";
      const Summary& a = it->second->summary;
      const Summary& b = m.summary;
      if (a.n != b.n || a.median != b.median || a.min != b.min || a.max != b.max) return key + " has other values";
    }
  }
  if (arrived_rows != kept.size()) {
    return std::to_string(kept.size()) + " metric results stored, " + std::to_string(arrived_rows) + " arriving";
  }
  return {};
}

}  // namespace

ImportReport import_runs(Store& store, const ParsedFiles& parsed) {
  ImportReport report;
  report.files = parsed.files;
  report.runs = parsed.runs.size();
  check_metric_meanings(parsed, store.metrics());
  if (!parsed.answers.empty()) {
    Incoming incoming;
    for (const Run& r : parsed.runs) {
      incoming.runs.insert(r.uuid);
      incoming.machines.insert(r.machine.fingerprint());
      for (const Result& res : r.results) {
        incoming.instances.insert(res.instance.display_name());
        for (const Measurement& m : res.metrics) incoming.metrics.insert(m.metric.name);
      }
    }
    check_answer_references(store, parsed.answers, incoming, parsed.ack_sources, parsed.note_sources);
  }
  std::vector<InsertOutcome> outcomes = store.insert_runs(parsed.runs);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].inserted) {
      report.skipped += 1;
      const std::string diff = run_difference(store.load_run(outcomes[i].run_id, false), parsed.runs[i]);
      if (!diff.empty()) {
        report.differing.push_back("run " + parsed.runs[i].uuid + " (id " + std::to_string(outcomes[i].run_id) +
                                   ") is stored already with other content (" + diff + "); the stored run is kept");
      }
      continue;
    }
    report.inserted += 1;
    for (const Result& res : parsed.runs[i].results) {
      report.results += res.metrics.size();
      for (const Measurement& m : res.metrics) report.samples += m.samples.size();
    }
  }
  report.answers = store_answers(store, parsed.answers);
  return report;
}

ImportReport import_into(const std::string& path, const ParsedFiles& parsed, const OpenOptions& options) {
  std::error_code ec;
  if (path != ":memory:" && !path.empty() && !is_server_location(path) &&
      !std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    NewFile file(path);
    ImportReport report;
    try {
      Store fresh(file.temp_path(), Access::read_write, options);
      report = import_runs(fresh, parsed);
    } catch (const Error& e) {
      throw Error("cannot create database '" + path + "' (nothing was left there): " + e.what(), e.exit_code());
    }
    if (file.publish()) return report;
  }
  Store store(path, Access::read_write, options);
  return import_runs(store, parsed);
}

ImportReport import_files(Store& store, const std::vector<std::string>& paths) {
  return import_runs(store, read_interchange_files(paths));
}

std::size_t export_runs(const Store& store, const std::vector<std::int64_t>& run_ids, std::ostream& out) {
  InterchangeWriter w(out);
  // Each run is written as it arrives: memory holds a batch of runs, not the history.
  store.load_runs(run_ids, [&w](Run&& run) { w.add(run); });
  std::vector<RunInfo> infos;
  for (const RunInfo& r : store.runs()) {
    if (std::find(run_ids.begin(), run_ids.end(), r.id) != run_ids.end()) infos.push_back(r);
  }
  w.finish(answers_for_runs(store, infos));
  if (!out) throw EnvironmentError("writing the export failed (disk full or output closed?)");
  return w.count();
}

std::size_t export_runs_to_file(const Store& store, const std::vector<std::int64_t>& run_ids, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError("export destination '" + path + "' is a directory");
  std::size_t n = 0;
  write_file_atomically(path, [&](std::ostream& out) { n = export_runs(store, run_ids, out); });
  return n;
}

}  // namespace gpuperf::db
