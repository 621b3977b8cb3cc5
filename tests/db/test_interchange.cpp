// The interchange format: what it accepts, and the exact message for each thing it refuses.
#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "db/interchange.hpp"
#include "db/timestamp.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::db {
namespace {

// A valid one-run document; tests break one thing in it.
const char* const kDoc = R"({"format": "gpuperf-results", "version": 1,
 "runs": [{"uuid": "5f0c3a1e-0000-4000-8000-000000000001", "started_at": "2026-11-01T03:00:00+01:00",
   "commit": "0123456789abcdef", "branch": "main", "label": "nightly",
   "machine": {"hostname": "gpu-node-1", "gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-1111", "driver": "580.159.04",
               "cuda": "13.0", "sm_count": 132, "cc": "9.0"},
   "results": [
     {"benchmark": "matmul/tiled", "params": {"n": 1024, "tile": 16, "layout": "row", "alpha": 1.5},
      "status": "ok", "baseline": "matmul/naive",
      "metrics": {"duration": {"unit": "ns", "samples": [277536, 277012, 277300],
                               "sm_clock_mhz": [1980, 1980, 1755],
                               "summary": {"median": 1}},
                  "gld_efficiency": {"unit": "%", "value": 100.0},
                  "l1tex__foo.sum": {"unit": "count", "status": "failed", "message": "not supported"}}},
     {"benchmark": "matmul/naive", "params": {"n": 1024}, "status": "incorrect", "message": "mismatch at 17"}]}]})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

// The InputError message of parsing `text`, or "" when it parsed.
std::string error_of(const std::string& text) {
  try {
    parse_interchange(text, "runs.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Interchange, ParsesAValidDocument) {
  auto runs = parse_interchange(kDoc, "runs.json");
  ASSERT_EQ(runs.size(), 1u);
  const gpuperf::Run& r = runs[0];
  EXPECT_EQ(r.started_at, "2026-11-01T02:00:00Z");  // normalized to UTC
  EXPECT_EQ(r.status, Status::incorrect);           // the worst instance, since the run states none
  EXPECT_EQ(r.machine.sm_count, 132);
  ASSERT_EQ(r.results.size(), 2u);
  const Result& tiled = r.results[0];
  EXPECT_EQ(tiled.instance.display_name(), "matmul/tiled[alpha=1.5,layout=row,n=1024,tile=16]");
  EXPECT_EQ(tiled.baseline, "matmul/naive");
  const Measurement* d = tiled.find("duration");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->summary.n, 3u);
  EXPECT_DOUBLE_EQ(d->summary.median, 277300);  // recomputed, the file's summary ignored
  EXPECT_FALSE(d->metric.higher_is_better);     // from the traits table
  EXPECT_EQ(d->sm_clock_mhz.size(), 3u);
  const Measurement* e = tiled.find("gld_efficiency");
  EXPECT_EQ(e->samples, std::vector<double>{100.0});
  EXPECT_TRUE(e->metric.higher_is_better);
  const Measurement* f = tiled.find("l1tex__foo.sum");
  EXPECT_EQ(f->status, Status::failed);
  EXPECT_TRUE(f->samples.empty());
  EXPECT_EQ(r.results[1].status, Status::incorrect);
  EXPECT_TRUE(r.results[1].metrics.empty());
  EXPECT_EQ(r.command, "");  // a benchmark run
  EXPECT_FALSE(r.exit_status.has_value());
}

TEST(Interchange, ParsesARecordedRunsCommandAndExitStatus) {
  auto parse = [](const std::string& fields) {
    const std::string doc = replace(kDoc, "\"label\": \"nightly\",", "\"label\": \"nightly\", " + fields);
    return parse_interchange(doc, "runs.json").at(0);
  };
  gpuperf::Run killed = parse(R"("command": "./app --name 'run 1'", "exit_status": -9,)");
  EXPECT_EQ(killed.command, "./app --name 'run 1'");
  EXPECT_EQ(killed.exit_status, -9);
  EXPECT_EQ(parse(R"("exit_status": 0,)").exit_status, 0);  // 0 is a value, not "none"
  EXPECT_EQ(parse(R"("exit_status": 2147483647,)").exit_status, 2147483647);
  EXPECT_EQ(parse(R"("exit_status": -2147483648,)").exit_status, -2147483647 - 1);
  gpuperf::Run no_status = parse(R"("command": "./app",)");
  EXPECT_EQ(no_status.command, "./app");
  EXPECT_FALSE(no_status.exit_status.has_value());
}

TEST(Interchange, RecordedRunFieldsOfTheWrongTypeNameTheirPath) {
  auto error_with = [](const std::string& fields) {
    return error_of(replace(kDoc, "\"label\": \"nightly\",", "\"label\": \"nightly\", " + fields));
  };
  EXPECT_EQ(error_with(R"("command": 7,)"), "runs.json: runs[0].command: expected a string, got 7");
  EXPECT_EQ(error_with(R"("command": ["./app", "-v"],)"),
            "runs.json: runs[0].command: expected a string, got an array");
  const std::string expected =
      "runs.json: runs[0].exit_status: expected an integer (the exit code, or minus the "
      "signal number), got ";
  EXPECT_EQ(error_with(R"("exit_status": "0",)"), expected + "\"0\"");
  EXPECT_EQ(error_with(R"("exit_status": 1.5,)"), expected + "1.5");
  EXPECT_EQ(error_with(R"("exit_status": null,)"), expected + "null");
  EXPECT_EQ(error_with(R"("exit_status": true,)"), expected + "true");
  EXPECT_EQ(error_with(R"("exit_status": 2147483648,)"), expected + "2147483648");
  EXPECT_EQ(error_with(R"("exit_status": -2147483649,)"), expected + "-2147483649");
  EXPECT_EQ(error_with(R"("exit_status": 18446744073709551616,)"), expected + "1.8446744073709552e+19");
}

TEST(Interchange, MalformedJsonNamesLineAndColumn) {
  std::string bad = replace(kDoc, "\"branch\": \"main\",", "\"branch\": \"main\",,");
  EXPECT_EQ(error_of(bad).rfind("runs.json:3:51: malformed JSON: syntax error while parsing object key", 0), 0u)
      << error_of(bad);
  EXPECT_EQ(error_of("").rfind("runs.json:1:1: malformed JSON", 0), 0u) << error_of("");
  std::string nan = replace(kDoc, "277012", "NaN");
  EXPECT_NE(error_of(nan).find("runs.json:9:66: malformed JSON"), std::string::npos) << error_of(nan);
  EXPECT_NE(error_of(nan).find("NaN and Infinity are not JSON numbers"), std::string::npos);
}

TEST(Interchange, WrongFormatOrVersion) {
  EXPECT_EQ(error_of(replace(kDoc, "gpuperf-results", "nvbench")),
            "runs.json: format: expected \"gpuperf-results\", got \"nvbench\"");
  EXPECT_EQ(error_of(replace(kDoc, "\"version\": 1", "\"version\": 2")),
            "runs.json: version: unsupported version 2 (this gpuperf reads version 1)");
  EXPECT_EQ(error_of(replace(kDoc, "\"version\": 1", "\"version\": \"1\"")),
            "runs.json: version: expected an integer, got \"1\"");
  EXPECT_EQ(error_of(replace(kDoc, "\"format\": \"gpuperf-results\",", "")),
            "runs.json: format: missing (is this a gpuperf-results file?)");
  EXPECT_EQ(error_of("[1, 2]"),
            "runs.json: expected a JSON object with \"format\", \"version\" and \"runs\", got an array");
}

TEST(Interchange, MissingFieldsNameTheirPath) {
  EXPECT_EQ(error_of(replace(kDoc, "\"uuid\": \"5f0c3a1e-0000-4000-8000-000000000001\",", "")),
            "runs.json: runs[0].uuid: missing");
  EXPECT_EQ(error_of(replace(kDoc, "\"gpu_name\": \"NVIDIA H200\",", "")),
            "runs.json: runs[0].machine.gpu_name: missing");
  EXPECT_EQ(error_of(replace(kDoc, "\"unit\": \"ns\",", "")),
            "runs.json: runs[0].results[0].metrics.duration.unit: missing");
  EXPECT_EQ(error_of(replace(kDoc, "\"status\": \"incorrect\",", "")), "runs.json: runs[0].results[1].status: missing");
  EXPECT_EQ(error_of(replace(kDoc, "\"value\": 100.0", "\"better\": \"higher\"")),
            "runs.json: runs[0].results[0].metrics.gld_efficiency: needs \"samples\" or \"value\" (or a \"status\" "
            "saying why there is none)");
}

TEST(Interchange, WrongTypesNameTheirPath) {
  EXPECT_EQ(error_of(replace(kDoc, "\"branch\": \"main\"", "\"branch\": 7")),
            "runs.json: runs[0].branch: expected a string, got 7");
  EXPECT_EQ(error_of(replace(kDoc, "\"sm_count\": 132", "\"sm_count\": \"132\"")),
            "runs.json: runs[0].machine.sm_count: expected a non-negative integer, got \"132\"");
  EXPECT_EQ(error_of(replace(kDoc, "\"tile\": 16", "\"tile\": [16]")),
            "runs.json: runs[0].results[0].params.tile: expected a number or a string, got an array");
  EXPECT_EQ(error_of(replace(kDoc, "277012", "\"277012\"")),
            "runs.json: runs[0].results[0].metrics.duration.samples[1]: expected a finite number, got \"277012\"");
  EXPECT_EQ(error_of(replace(kDoc, "\"status\": \"ok\"", "\"status\": \"great\"")),
            "runs.json: runs[0].results[0].status: unknown status 'great' (expected ok, incorrect, failed, "
            "unsupported or skipped)");
  EXPECT_EQ(error_of(replace(kDoc, "\"value\": 100.0", "\"value\": null")),
            "runs.json: runs[0].results[0].metrics.gld_efficiency.value: expected a finite number, got null");
  EXPECT_EQ(error_of(replace(kDoc, "\"started_at\": \"2026-11-01T03:00:00+01:00\"", "\"started_at\": \"yesterday\"")),
            "runs.json: runs[0].started_at: expected an ISO 8601 time with a zone like \"2026-11-01T02:00:00Z\", "
            "got \"yesterday\"");
  EXPECT_EQ(error_of(replace(kDoc, "\"machine\": {", "\"machine\": [{")).rfind("runs.json:", 0), 0u);
  EXPECT_EQ(error_of(replace(kDoc, "\"unit\": \"ns\"", "\"unit\": \"ms\"")),
            "runs.json: runs[0].results[0].metrics.duration.unit: gpuperf's metric 'duration' is measured in \"ns\", "
            "got \"ms\"");
}

TEST(Interchange, NanAndInfinityAreRefusedWithTheirPath) {
  const std::string samples = "metrics.duration.samples[1]: expected a finite number, got ";
  EXPECT_EQ(error_of(replace(kDoc, "277012", "\"NaN\"")), "runs.json: runs[0].results[0]." + samples + "\"NaN\"");
  EXPECT_EQ(error_of(replace(kDoc, "277012", "\"-inf\"")), "runs.json: runs[0].results[0]." + samples + "\"-inf\"");
  EXPECT_EQ(error_of(replace(kDoc, "277012", "1e999")),
            "runs.json: runs[0].results[0]." + samples + "1e999 (beyond the range of a double)");
  EXPECT_EQ(error_of(replace(kDoc, "\"value\": 100.0", "\"value\": -2E+400")),
            "runs.json: runs[0].results[0].metrics.gld_efficiency.value: expected a finite number, got -2E+400 "
            "(beyond the range of a double)");
  // The same literal inside a string is text, not a number, and a string where a string belongs is fine.
  std::string label = replace(kDoc, "\"label\": \"nightly\"", "\"label\": \"1e999\"");
  EXPECT_EQ(error_of(replace(label, "277012", "1e999")),
            "runs.json: runs[0].results[0]." + samples + "1e999 (beyond the range of a double)");
  EXPECT_EQ(error_of(replace(kDoc, "\"label\": \"nightly\"", "\"label\": 1e999")),
            "runs.json: runs[0].label: expected a string, got 1e999 (beyond the range of a double)");
  EXPECT_EQ(error_of(replace(kDoc, "[1980, 1980, 1755]", "[1980, 1e400, 1755]")),
            "runs.json: runs[0].results[0].metrics.duration.sm_clock_mhz[1]: expected a finite number, got 1e400 "
            "(beyond the range of a double)");
}

TEST(Interchange, EmptySamplesAndMismatchedClocks) {
  EXPECT_EQ(error_of(replace(kDoc, "[277536, 277012, 277300]", "[]")),
            "runs.json: runs[0].results[0].metrics.duration.samples: empty (a metric with status ok needs at least "
            "one sample)");
  EXPECT_EQ(error_of(replace(kDoc, "[1980, 1980, 1755]", "[1980]")),
            "runs.json: runs[0].results[0].metrics.duration.sm_clock_mhz: 1 readings for 3 samples (need one per "
            "sample)");
  EXPECT_EQ(error_of(replace(kDoc, "\"value\": 100.0", "\"value\": 100.0, \"samples\": [1]")),
            "runs.json: runs[0].results[0].metrics.gld_efficiency: has both \"samples\" and \"value\"; give one");
}

TEST(Interchange, DuplicatesAreRefused) {
  std::string doc = kDoc;
  auto runs_at = doc.find("[{\"uuid\"");
  std::string one_run = doc.substr(runs_at + 1, doc.size() - runs_at - 3);  // without the closing "]}"
  std::string two = doc.substr(0, doc.size() - 2) + ", " + one_run + "]}";
  EXPECT_EQ(error_of(two),
            "runs.json: runs[1].uuid: duplicate run uuid \"5f0c3a1e-0000-4000-8000-000000000001\" (first at runs[0])");
  std::string twice = replace(kDoc, "\"params\": {\"n\": 1024}, \"status\": \"incorrect\"",
                              "\"params\": {\"n\": 1024, \"tile\": 16, \"layout\": \"row\", \"alpha\": 1.5}, "
                              "\"status\": \"incorrect\"");
  twice = replace(twice, "\"benchmark\": \"matmul/naive\"", "\"benchmark\": \"matmul/tiled\"");
  EXPECT_EQ(error_of(twice),
            "runs.json: runs[0].results[1]: benchmark instance matmul/tiled[alpha=1.5,layout=row,n=1024,tile=16] "
            "appears twice in this run (first at runs[0].results[0])");
}

TEST(Interchange, ReadsFilesAndNamesUnreadableOnes) {
  testing::TempDir dir;
  testing::write_bytes(dir.file("a.json"), kDoc);
  EXPECT_EQ(read_interchange_file(dir.file("a.json")).size(), 1u);
  try {
    read_interchange_file(dir.file("missing.json"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json': No such file or directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_interchange_file(dir.path().string()), InputError);
}

TEST(Timestamp, NormalizesToUtc) {
  EXPECT_EQ(normalize_timestamp("2026-11-01T02:00:00Z"), "2026-11-01T02:00:00Z");
  EXPECT_EQ(normalize_timestamp("2026-11-01T01:30:00-01:00"), "2026-11-01T02:30:00Z");
  EXPECT_EQ(normalize_timestamp("2026-01-01T00:30:00.125+01:00"), "2025-12-31T23:30:00.125Z");
  EXPECT_EQ(normalize_timestamp("2028-02-29T00:00:00Z"), "2028-02-29T00:00:00Z");
  for (const char* bad :
       {"2026-11-01T02:00:00", "2026-11-01 02:00:00Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
        "2026-11-01T24:00:00Z", "2026-11-01T02:00:00.Z", "2026-11-01T02:00:00+0100", "2026-11-01T02:00:00Zjunk", ""}) {
    EXPECT_FALSE(normalize_timestamp(bad).has_value()) << bad;
  }
  EXPECT_TRUE(is_normalized_timestamp("2026-11-01T02:00:00Z"));
  EXPECT_FALSE(is_normalized_timestamp("2026-11-01T03:00:00+01:00"));
}

}  // namespace
}  // namespace gpuperf::db
