// What an import refuses as nonsense (dates before 2000, values no kernel measures, strings of megabytes, in a
// run or a note, negative bytes or percentages of a custom metric), uuids that differ only in case, a stored uuid
// arriving with other content; and an escape corpus through every error path that quotes a value from the file or the
// command line: no control character reaches the terminal.
#include <string>
#include <vector>

#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

const std::string kUuid = "5f0c3a1e-8b2d-4c6f-9a01-23456789abcd";

std::string run_json(const std::string& uuid, const std::string& results, const std::string& extra = "",
                     const std::string& started = "2026-11-01T02:00:00Z") {
  return R"({"uuid": ")" + uuid + R"(", "started_at": ")" + started + R"(", )" + extra +
         R"("machine": {"hostname": "h", "gpu_name": "NVIDIA H100"}, "results": [)" + results + "]}";
}

std::string file_of(const std::string& runs) {
  return R"({"format": "gpuperf-results", "version": 1, "runs": [)" + runs + "]}";
}

std::string one_result(const std::string& metrics, const std::string& status = "ok",
                       const std::string& params = R"({"n": 1024})") {
  return R"({"benchmark": "matmul/tiled", "params": )" + params + R"(, "status": ")" + status + R"(", "metrics": {)" +
         metrics + "}}";
}

const std::string kDuration = R"("duration": {"unit": "ns", "samples": [54800, 54900, 55000]})";

// Escape sequences as JSON text (clear screen, set the window title, a bell, an 8-bit CSI U+009B) and the
// raw bytes that must never reach the terminal.
const std::string kEscapeJson = R"(\u001b[2J\u001b]0;T\u0007X\u009b31m)";
const std::string kEscapeRaw = "\x1b[2J\x1b]0;T\x07X";

bool has_control(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b < 0x20 && b != '\n') || b == 0x7F) return true;
    if (b == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      return true;
    }
  }
  return false;
}

class ImportBounds : public CliTest {
 protected:
  // Imports `file` into the seeded ./gpuperf.db: exit 2 naming `needle`, the database unchanged.
  void expect_refused(const std::string& file, const std::string& needle) {
    seed();
    const std::string before = bytes("gpuperf.db");
    write("bad.json", file);
    const CliResult r = gp({"import", "bad.json"});
    EXPECT_CLI(r, 2, needle);
    EXPECT_FALSE(has_control(r.out + r.err)) << r.err;
    EXPECT_EQ(bytes("gpuperf.db"), before) << "the database changed";
  }
};

TEST_F(ImportBounds, ARunDatedBefore2000IsRefused) {
  expect_refused(file_of(run_json(kUuid, one_result(kDuration), "", "1900-01-01T00:00:00Z")),
                 "runs[0].started_at: \"1900-01-01T00:00:00Z\" is before 2000-01-01T00:00:00Z");
  expect_refused(file_of(run_json(kUuid, one_result(kDuration), "", "1970-01-01T00:00:00Z")), "is before 2000");
}

TEST_F(ImportBounds, ADurationNoKernelTakesIsRefused) {
  expect_refused(file_of(run_json(kUuid, one_result(R"("duration": {"unit": "ns", "samples": [54800, 1e308]})"))),
                 "runs[0].results[0].metrics.duration.samples[1]: expected a duration of at most 1e15 ns");
}

TEST_F(ImportBounds, AnAbsurdValueOfACustomMetricIsRefused) {
  expect_refused(file_of(run_json(kUuid, one_result(kDuration + R"(, "my_count": {"unit": "count", "value": 1e300})"))),
                 "metrics.my_count.value: expected a measured value of at most 1e18 in magnitude");
}

TEST_F(ImportBounds, NegativeBytesOrPercentOfACustomMetricAreRefused) {
  expect_refused(file_of(run_json(kUuid, one_result(kDuration + R"(, "my_bytes": {"unit": "bytes", "value": -5})"))),
                 "metrics.my_bytes.value: expected a value of 0 or more (bytes), got -5");
  expect_refused(file_of(run_json(kUuid, one_result(kDuration + R"(, "my_share": {"unit": "%", "value": -0.5})"))),
                 "metrics.my_share.value: expected a value of 0 or more (%), got -0.5");
}

TEST_F(ImportBounds, AStringOfMegabytesIsRefused) {
  const std::string label(2 << 20, 'x');
  expect_refused(file_of(run_json(kUuid, one_result(kDuration), R"("label": ")" + label + R"(", )")),
                 "runs[0].label: a string of 2097152 bytes, longer than the 1024 bytes this field may have");
  const std::string key(5000, 'k');
  expect_refused(file_of(run_json(kUuid, one_result(kDuration, "ok", R"({")" + key + R"(": 1})"))),
                 "runs[0].results[0].params: a key of 5000 bytes");
}

// A recorded kernel's demangled name (C++ templates) reaches kilobytes: such a benchmark imports, as `export`
// wrote it; one of more than 16 KiB is refused.
TEST_F(ImportBounds, AKernelNameOfKilobytesImportsAndOneBeyond16KiBIsRefused) {
  const auto named = [](const std::string& name) {
    return R"({"benchmark": ")" + name + R"(", "params": {"n": 1024}, "status": "ok", "metrics": {)" + kDuration + "}}";
  };
  const std::string templated = "prog/cutlass::Kernel<" + std::string(3000, 'T') + ">";
  seed();
  write("long.json", file_of(run_json(kUuid, named(templated))));
  EXPECT_CLI(gp({"import", "long.json"}), 0, "imported 1 run");
  expect_refused(file_of(run_json("7f1c2a9e-0000-4000-8000-00000000abcd", named(std::string(20000, 'k')))),
                 "runs[0].results[0].benchmark: a string of 20000 bytes, longer than the 16384 bytes");
}

// A team's answers travel in the same files (db/answers_json.cpp) under the same bounds: a note of megabytes is
// refused as a label is, and nothing of the file is stored.
TEST_F(ImportBounds, AnAnnotationOfMegabytesIsRefused) {
  const std::string text(2 << 20, 'x');
  std::string file = file_of(run_json(kUuid, one_result(kDuration)));
  file.pop_back();  // the closing brace: the annotations follow the runs
  file += R"(, "annotations": [{"uuid": "6a0c3a1e-8b2d-4c6f-9a01-23456789abcd", "text": ")" + text +
          R"(", "at": "2026-11-01T03:00:00Z", "run": ")" + kUuid + R"("}]})";
  expect_refused(file, "annotations[0].text: a string of 2097152 bytes, longer than the 65536 bytes");
}

TEST_F(ImportBounds, UuidsDifferingOnlyInCaseAreOneRun) {
  seed();
  std::string upper = kUuid;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  write("upper.json", file_of(run_json(upper, one_result(kDuration))));
  write("lower.json", file_of(run_json(kUuid, one_result(kDuration))));
  EXPECT_CLI(gp({"import", "upper.json"}), 0, "1 new");
  const CliResult again = gp({"import", "lower.json"});
  EXPECT_CLI(again, 0, "0 new, 1 skipped");
  EXPECT_EQ(again.err.find("other content"), std::string::npos) << again.err;
  EXPECT_CLI(gp({"runs", "--format", "json"}), 0, "\"" + kUuid + "\"");
  write("both.json", file_of(run_json(upper, one_result(kDuration)) + ", " + run_json(kUuid, one_result(kDuration))));
  EXPECT_CLI(gp({"import", "both.json"}), 2, "runs[1].uuid: duplicate run uuid");
}

TEST_F(ImportBounds, AStoredUuidArrivingWithOtherContentIsSaid) {
  seed();
  write("first.json", file_of(run_json(kUuid, one_result(kDuration), R"("commit": "abc1234", )")));
  ASSERT_EQ(gp({"import", "first.json"}).code, 0);
  const std::string before = bytes("gpuperf.db");
  write("commit.json", file_of(run_json(kUuid, one_result(kDuration), R"("commit": "def5678", )")));
  EXPECT_CLI(gp({"import", "commit.json"}), 0,
             "gpuperf: warning: run " + kUuid +
                 " (id 4) is stored already with other content (commit \"abc1234\" stored, \"def5678\" arriving); "
                 "the stored run is kept");
  write("values.json", file_of(run_json(kUuid, one_result(R"("duration": {"unit": "ns", "samples": [99800, 99900]})"),
                                        R"("commit": "abc1234", )")));
  EXPECT_CLI(gp({"import", "values.json"}), 0, "matmul/tiled[n=1024] duration has other values");
  EXPECT_EQ(bytes("gpuperf.db"), before);
  const CliResult same = gp({"import", "first.json"});
  EXPECT_CLI(same, 0, "0 new, 1 skipped");
  EXPECT_EQ(same.err.find("other content"), std::string::npos) << same.err;
}

// Each error path that quotes a value from the file: the value's control characters arrive as escapes.
TEST_F(ImportBounds, EscapeSequencesNeverReachTheTerminal) {
  const std::vector<std::pair<std::string, std::string>> corpus = {
      {file_of(run_json(kEscapeJson, one_result(kDuration))), "runs[0].uuid: expected a uuid"},
      {file_of(run_json(kUuid, one_result(kDuration, kEscapeJson))), "runs[0].results[0].status: unknown status"},
      {file_of(run_json(kUuid, one_result(kDuration), R"("status": ")" + kEscapeJson + R"(", )")),
       "runs[0].status: unknown status"},
      {file_of(run_json(kUuid, one_result(kDuration, "ok", R"({")" + kEscapeJson + R"(": null})"))),
       "runs[0].results[0].params[\"\\u001b[2J"},
      {file_of(run_json(kUuid, one_result(R"(")" + kEscapeJson + R"(": {"unit": "ns"}, )" + kDuration))),
       "runs[0].results[0].metrics[\"\\u001b[2J"},
      {file_of(run_json(kUuid, one_result(kDuration), R"("commit": 5, "branch": ")" + kEscapeJson + R"(", )")),
       "runs[0].commit: expected a string"},
      {file_of(run_json(kUuid, one_result(kDuration) + ", " + one_result(kDuration),
                        R"("label": ")" + kEscapeJson + R"(", )")),
       "appears twice in this run"},
      {file_of(run_json(kUuid, R"({"benchmark": ")" + kEscapeJson + R"(", "status": "ok", "metrics": {)" + kDuration +
                                   "}}, " + R"({"benchmark": ")" + kEscapeJson + R"(", "status": "ok", "metrics": {)" +
                                   kDuration + "}}")),
       "appears twice in this run"},
      {file_of(run_json(kUuid, one_result(R"("duration": {"unit": ")" + kEscapeJson + R"(", "value": 1})"))),
       "metrics.duration.unit: gpuperf's metric 'duration' is measured in \"ns\", got \"\\u001b[2J"},
  };
  for (const auto& [file, needle] : corpus) {
    SCOPED_TRACE(needle);
    expect_refused(file, needle);
  }
}

TEST_F(ImportBounds, ExcludeEchoesItsReasonAsText) {
  seed();
  const CliResult r = gp({"runs", "exclude", "1", "--reason", kEscapeRaw + " busy"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("busy"), std::string::npos) << r.out;
  EXPECT_FALSE(has_control(r.out + r.err)) << r.out;
  const CliResult listed = gp({"runs"});
  EXPECT_FALSE(has_control(listed.out + listed.err)) << listed.out;
  // A reference that names no run, quoted back.
  const CliResult bad = gp({"runs", "exclude", kEscapeRaw, "--reason", "x"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_FALSE(has_control(bad.out + bad.err)) << bad.err;
  const CliResult cmp = gp({"compare", kEscapeRaw, "1"});
  EXPECT_EQ(cmp.code, 2);
  EXPECT_FALSE(has_control(cmp.out + cmp.err)) << cmp.err;
}

}  // namespace
}  // namespace gpuperf::testing
