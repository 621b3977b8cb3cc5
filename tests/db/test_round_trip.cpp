// export(import(x)) is equivalent to x; import is idempotent and all or nothing across files.
#include <gtest/gtest.h>

#include <sstream>

#include "db/import_export.hpp"
#include "db/interchange.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

using testing::make_run;
using testing::TempDir;

// Runs covering what the format can say: params of every type, clocks, failed metrics, an incorrect
// instance without metrics, an excluded run, a second machine, a raw Perfworks metric.
std::vector<gpuperf::Run> varied_runs() {
  std::vector<gpuperf::Run> runs;
  runs.push_back(make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"));
  gpuperf::Run b = make_run("22222222-0000-4000-8000-000000000002", "2026-11-02T02:00:00.250Z", "feature/x", 1.1,
                            testing::h200("gpu-node-2", ""));
  b.results[0].instance.params["layout"] = std::string("col \"major\"");
  b.results[0].instance.params["alpha"] = 0.1;
  b.results[1].status = Status::incorrect;
  b.results[1].message = "max abs error 3.5 at [17]";
  b.results[1].metrics.clear();
  b.status = Status::incorrect;
  Measurement raw;
  raw.metric = MetricInfo{"smsp__inst_executed.sum", "count", false, true};
  raw.status = Status::failed;
  raw.message = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
  b.results[0].metrics.push_back(raw);
  b.excluded = true;
  b.exclude_reason = "GPU shared with another job";
  runs.push_back(b);
  gpuperf::Run c = make_run("33333333-0000-4000-8000-000000000003", "2026-11-03T02:00:00Z");
  c.results[0].metrics[0].samples = {1e-9, 123456789.125, 0.1 + 0.2, 5e14 + 0.375};  // import refuses beyond 1e15 ns
  c.results[0].metrics[0].summary = summarize(c.results[0].metrics[0].samples);
  c.finished_at = "";
  runs.push_back(c);
  return runs;
}

std::vector<std::int64_t> all_ids(const Store& s) {
  std::vector<std::int64_t> ids;
  for (const auto& r : s.runs()) ids.push_back(r.id);
  return ids;
}

TEST(RoundTrip, ExportOfImportIsByteIdentical) {
  TempDir dir;
  const std::string original = to_interchange(varied_runs());
  testing::write_bytes(dir.file("x.json"), original);
  Store store(dir.file("g.db"));
  ImportReport rep = import_files(store, {dir.file("x.json")});
  EXPECT_EQ(rep.inserted, 3u);
  EXPECT_EQ(rep.skipped, 0u);
  std::ostringstream out;
  EXPECT_EQ(export_runs(store, all_ids(store), out), 3u);
  EXPECT_EQ(out.str(), original);
  // And the model survives too.
  auto back = parse_interchange(out.str(), "export");
  auto want = varied_runs();
  ASSERT_EQ(back.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) testing::expect_same_run(back[i], want[i]);
}

TEST(RoundTrip, RecordedRunsKeepCommandAndExitStatusThroughExportAndImport) {
  TempDir dir;
  std::vector<gpuperf::Run> runs{
      make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z"),
      testing::make_recorded_run("22222222-0000-4000-8000-000000000002", "2026-11-02T02:00:00Z", 0),
      testing::make_recorded_run("33333333-0000-4000-8000-000000000003", "2026-11-03T02:00:00Z", -11),
      testing::make_recorded_run("44444444-0000-4000-8000-000000000004", "2026-11-04T02:00:00Z", std::nullopt)};
  runs[2].command = "./app 'it'\\''s' \"quoted\" \\path\ttab";  // JSON escapes on the way out and back
  {
    Store first(dir.file("first.db"));
    first.insert_runs(runs);
    export_runs_to_file(first, all_ids(first), dir.file("x.json"));
  }
  const std::string text = testing::read_bytes(dir.file("x.json"));
  // One run per line: the benchmark run has neither key, the recorded ones have what they hold.
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(text.substr(at, nl - at));
  }
  ASSERT_EQ(lines.size(), 6u);  // header, four runs, end
  EXPECT_EQ(lines[1].find("\"command\""), std::string::npos);
  EXPECT_EQ(lines[1].find("\"exit_status\""), std::string::npos);
  EXPECT_NE(lines[2].find(R"("command":"./train --epochs 2 --name 'run 1'","exit_status":0,"machine")"),
            std::string::npos)
      << lines[2];
  EXPECT_NE(lines[3].find(R"("exit_status":-11)"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("\"command\""), std::string::npos);
  EXPECT_EQ(lines[4].find("\"exit_status\""), std::string::npos);

  Store second(dir.file("second.db"));
  EXPECT_EQ(import_files(second, {dir.file("x.json")}).inserted, 4u);
  const auto ids = all_ids(second);
  ASSERT_EQ(ids.size(), runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) testing::expect_same_run(second.load_run(ids[i]), runs[i]);
  std::ostringstream again;
  export_runs(second, ids, again);
  EXPECT_EQ(again.str(), text);
}

TEST(RoundTrip, ABenchmarkRunsExportIsUnchangedByRecordedRuns) {
  // benchmark_run_v1.json is what gpuperf exported for this run before runs had a command or exit status.
  const std::string before = testing::read_bytes(DB_FIXTURES "/benchmark_run_v1.json");
  ASSERT_FALSE(before.empty());
  const gpuperf::Run run = make_run("11111111-0000-4000-8000-000000000001", "2026-11-01T02:00:00Z");
  EXPECT_EQ(to_interchange({run}), before);
  Store store(":memory:");
  store.insert_run(run);
  std::ostringstream out;
  export_runs(store, all_ids(store), out);
  EXPECT_EQ(out.str(), before);
}

TEST(RoundTrip, HandWrittenFileIsEquivalentAfterExport) {
  // Offsets, "value" for one sample, a one-sample "samples" list, a summary to ignore, no run status.
  const std::string doc = R"({"format": "gpuperf-results", "version": 1, "runs": [
    {"uuid": "aaaaaaaa-0000-4000-8000-000000000001", "started_at": "2026-11-01T04:00:00+02:00",
     "machine": {"hostname": "h", "gpu_name": "NVIDIA H200"},
     "results": [{"benchmark": "copy/strided", "params": {"stride": 32}, "status": "ok",
                  "metrics": {"gst_efficiency": {"unit": "%", "samples": [12.5]},
                              "duration": {"unit": "ns", "samples": [10, 30, 20], "summary": {"n": 99}}}}]}]})";
  Store store(":memory:");
  std::vector<gpuperf::Run> first = parse_interchange(doc, "doc.json");
  store.insert_runs(first);
  std::ostringstream out;
  export_runs(store, all_ids(store), out);
  std::vector<gpuperf::Run> again = parse_interchange(out.str(), "export");
  ASSERT_EQ(again.size(), 1u);
  testing::expect_same_run(again[0], first[0]);
  EXPECT_EQ(again[0].started_at, "2026-11-01T02:00:00Z");
  EXPECT_EQ(again[0].results[0].metrics[0].metric.name, "gst_efficiency");  // file order kept
  EXPECT_DOUBLE_EQ(again[0].results[0].metrics[1].summary.median, 20);
  EXPECT_EQ(out.str().find("\"n\":99"), std::string::npos);
}

TEST(RoundTrip, ImportIsIdempotent) {
  TempDir dir;
  testing::write_bytes(dir.file("x.json"), to_interchange(varied_runs()));
  Store store(dir.file("g.db"));
  import_files(store, {dir.file("x.json")});
  ImportReport again = import_files(store, {dir.file("x.json")});
  EXPECT_EQ(again.runs, 3u);
  EXPECT_EQ(again.inserted, 0u);
  EXPECT_EQ(again.skipped, 3u);
  EXPECT_EQ(store.runs().size(), 3u);
}

TEST(RoundTrip, ABadFileAmongGoodOnesWritesNothing) {
  TempDir dir;
  testing::write_bytes(dir.file("good.json"), to_interchange(varied_runs()));
  testing::write_bytes(dir.file("bad.json"), "{\"format\": \"gpuperf-results\", \"version\": 1, \"runs\": [{}]}");
  Store store(dir.file("g.db"));
  try {
    import_files(store, {dir.file("good.json"), dir.file("bad.json")});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir.file("bad.json") + ": runs[0].uuid: missing");
  }
  EXPECT_EQ(store.runs().size(), 0u);
}

TEST(RoundTrip, ExportToFileReplacesAtomically) {
  TempDir dir;
  Store store(":memory:");
  store.insert_runs(varied_runs());
  testing::write_bytes(dir.file("out.json"), "old");
  EXPECT_EQ(export_runs_to_file(store, all_ids(store), dir.file("out.json")), 3u);
  EXPECT_EQ(testing::read_bytes(dir.file("out.json")), to_interchange(varied_runs()));
  // Only the file itself is left: no temporary next to it.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
  // A failure part-way (a run id that is not there) leaves the previous file and no temporary.
  EXPECT_THROW(export_runs_to_file(store, {1, 999}, dir.file("out.json")), InputError);
  EXPECT_EQ(testing::read_bytes(dir.file("out.json")), to_interchange(varied_runs()));
  files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
  testing::write_bytes(dir.file("plain"), "x");
  try {
    export_runs_to_file(store, all_ids(store), dir.file("plain") + "/out.json");
    FAIL();
  } catch (const EnvironmentError& e) {
    EXPECT_NE(std::string(e.what()).find("Not a directory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuperf::db
