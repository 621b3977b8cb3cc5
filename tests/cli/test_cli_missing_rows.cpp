// A candidate that lost benchmarks of its base fails compare (exit 1), named with a count and the first names;
// --allow-missing passes a partial candidate, --filter narrows both sides first, and a metric missing from an
// instance that is there (a run without profiling) is not a missing benchmark.
#include <nlohmann/json.hpp>

#include "tests/cli/cli_fixture.hpp"

namespace gpuperf::testing {
namespace {

std::string result(const std::string& benchmark, bool with_counter = true) {
  return R"({"benchmark": ")" + benchmark + R"(", "status": "ok", "metrics": {"duration": {"unit": "ns", )" +
         R"("samples": [54800, 54900, 55000, 54850, 54950]})" +
         (with_counter ? R"(, "gld_efficiency": {"unit": "%", "value": 100})" : "") + "}}";
}

std::string run(int day, const std::vector<std::string>& results) {
  std::string joined;
  for (const auto& r : results) joined += (joined.empty() ? "" : ", ") + r;
  char head[160];
  std::snprintf(head, sizeof head, R"({"uuid": "%s", "started_at": "2026-10-%02dT02:00:00Z", "branch": "main", )",
                run_uuid(day).c_str(), day);
  return std::string(head) + R"("machine": {"hostname": "h", "gpu_name": "NVIDIA H100"}, "results": [)" + joined + "]}";
}

class MissingRows : public CliTest {
 protected:
  void SetUp() override {
    std::vector<std::string> all;
    for (const char* b : {"fam/a", "fam/b", "fam/c", "fam/d", "fam/e", "fam/f", "fam/g"}) all.push_back(result(b));
    write("runs.json",
          R"({"format": "gpuperf-results", "version": 1, "runs": [)" + run(1, all) + ", " +
              run(2, {result("fam/a"), result("fam/b")}) + ", " +
              run(3, {result("fam/a", false), result("fam/b", false), result("fam/c", false), result("fam/d", false),
                      result("fam/e", false), result("fam/f", false), result("fam/g", false)}) +
              "]}");
    ASSERT_EQ(gp({"--quiet", "import", "runs.json"}).code, 0);
  }
};

TEST_F(MissingRows, ACandidateThatLostBenchmarksFails) {
  const CliResult r = gp({"compare", "1", "2"});
  EXPECT_CLI(r, 1,
             "5 benchmark instances of the base are missing from the candidate (fam/c, fam/d, fam/e, fam/f, fam/g): "
             "a partial candidate fails; --allow-missing allows it");
  EXPECT_NE(r.out.find("\nREGRESSION\n"), std::string::npos) << r.out;
}

TEST_F(MissingRows, AllowMissingPassesAPartialCandidate) {
  const CliResult r = gp({"compare", "1", "2", "--allow-missing"});
  EXPECT_CLI(r, 0, "5 benchmark instances of the base are missing from the candidate");
  EXPECT_NE(r.out.find("allowed by --allow-missing"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no regression"), std::string::npos) << r.out;
}

TEST_F(MissingRows, AFilterNarrowsBothSidesFirst) {
  EXPECT_CLI(gp({"compare", "1", "2", "--filter", "fam/[ab]"}), 0, "no regression");
  EXPECT_CLI(gp({"compare", "1", "2", "--filter", "fam/[abc]"}), 1, "1 benchmark instance of the base is missing");
}

TEST_F(MissingRows, AMissingMetricIsNotAMissingBenchmark) {
  const CliResult r = gp({"compare", "1", "3"});
  EXPECT_CLI(r, 0, "no regression");
  EXPECT_EQ((r.out + r.err).find("missing from the candidate"), std::string::npos) << r.out;
}

TEST_F(MissingRows, JsonAndJUnitSayItToo) {
  const CliResult r = gp({"compare", "1", "2", "--format", "json", "--junit", "out/j.xml"});
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["regression"].get<bool>());
  EXPECT_EQ(j["missing_instances"].size(), 5u);
  EXPECT_EQ(j["missing_instances"][0], "fam/c");
  EXPECT_FALSE(j["allow_missing"].get<bool>());
  const std::string junit = bytes("out/j.xml");
  EXPECT_NE(junit.find("<failure type=\"missing\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("failures=\"1\""), std::string::npos) << junit;
}

}  // namespace
}  // namespace gpuperf::testing
