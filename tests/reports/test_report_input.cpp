// Reading a report's window from a real SQLite store filled by the import that `gpuperf import` runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <unistd.h>

#include "core/errors.hpp"
#include "db/import_export.hpp"
#include "reports/report_input.hpp"
#include "reports/writers.hpp"

#ifndef GPUPERF_REPORT_FIXTURE
#error "GPUPERF_REPORT_FIXTURE must name tests/reports/fixture_history.json"
#endif

namespace gpuperf::reports {
namespace {

namespace fs = std::filesystem;

class ReportInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuperf-report-input-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  db::Store imported() {
    db::Store store((dir_ / "fixture.db").string());
    db::import_files(store, {GPUPERF_REPORT_FIXTURE});
    return store;
  }
  fs::path dir_;
};

TEST_F(ReportInputTest, ReadsRunsHistoryAndBaselines) {
  db::Store store = imported();
  std::size_t detector_series = 0;
  ReportInput in = load_report_input(store, {}, [&](const std::vector<db::Series>& s) {
    detector_series = s.size();
    return std::vector<analysis::ChangePoint>{};
  });
  EXPECT_EQ(in.machines.size(), 2u);
  EXPECT_EQ(in.runs.size(), 16u);
  EXPECT_EQ(detector_series, in.series.size());
  EXPECT_EQ(in.baselines.at("matmul/tiled"), "matmul/naive");
  EXPECT_EQ(in.baselines.at("memory/strided"), "memory/coalesced");
  EXPECT_EQ(in.baselines.at("stencil1d/shared"), "stencil1d/global");
  EXPECT_EQ(in.baselines.count("matmul/naive"), 0u);
  for (const auto& s : in.series) EXPECT_TRUE(s.points.front().samples.empty());  // summaries only

  // The failed run of the hostile benchmark leaves a gap, not a point.
  ReportModel model = build_report_model(in);
  ASSERT_EQ(model.machines.size(), 2u);
  const MachineReport& h200 = model.machines[0];
  EXPECT_EQ(h200.machine.hostname, "ci-h200-01");
  EXPECT_EQ(h200.runs.size(), 12u);
  for (const auto& inst : h200.instances) {
    if (inst.instance.name.rfind("user/", 0) == 0) {
      EXPECT_EQ(inst.find("duration")->points.size(), 11u);
      EXPECT_EQ(inst.find("duration")->at(3), nullptr);
    }
  }
  ASSERT_EQ(h200.families.size(), 3u);
}

TEST_F(ReportInputTest, FiltersByMachineBranchSinceAndLast) {
  db::Store store = imported();
  ReportQuery q;
  q.machines = {"ci-h200-01"};
  EXPECT_EQ(load_report_input(store, q, nullptr).runs.size(), 12u);
  q.machines = {"GPU-0a1b2c3d-4e5f-4061-8273-000000000007"};  // a fingerprint
  EXPECT_EQ(load_report_input(store, q, nullptr).runs.size(), 4u);
  q = {};
  q.last = 3;
  ReportInput last3 = load_report_input(store, q, nullptr);
  EXPECT_EQ(last3.runs.size(), 6u);  // three per machine
  std::set<std::int64_t> run_ids;
  for (const auto& s : last3.series) {
    for (const auto& p : s.points) run_ids.insert(p.run_id);
  }
  EXPECT_EQ(run_ids.size(), 6u);
  q = {};
  q.branch = "main";
  q.since = "2026-10-10";
  ReportInput since = load_report_input(store, q, nullptr);
  ASSERT_EQ(since.runs.size(), 3u);  // Oct 10, 11, 12
  EXPECT_EQ(since.runs.front().started_at, "2026-10-10T02:00:00Z");
}

TEST_F(ReportInputTest, SeveralMachinesAreEachReadOnceWithTheirOwnWindow) {
  db::Store store = imported();
  ReportQuery all;
  const ReportInput every = load_report_input(store, all, nullptr);
  ReportQuery q;
  // A hostname and a fingerprint: both machines, as without --machine.
  q.machines = {"ci-h200-01", "GPU-0a1b2c3d-4e5f-4061-8273-000000000007"};
  ReportInput both = load_report_input(store, q, nullptr);
  EXPECT_EQ(both.runs.size(), 16u);
  EXPECT_EQ(both.runs.size(), every.runs.size());
  EXPECT_EQ(both.series.size(), every.series.size());
  // The same machine by two names is read once.
  std::string h200_id;
  for (const auto& m : store.machines()) {
    if (m.machine.hostname == "ci-h200-01") h200_id = std::to_string(m.id);
  }
  ASSERT_FALSE(h200_id.empty());
  q.machines = {"ci-h200-01", h200_id};
  ReportInput once = load_report_input(store, q, nullptr);
  EXPECT_EQ(once.runs.size(), 12u);
  std::set<std::pair<std::int64_t, std::int64_t>> points;  // (series index, run): no series read twice
  std::size_t total = 0;
  for (std::size_t i = 0; i < once.series.size(); ++i) {
    for (const auto& p : once.series[i].points) {
      points.emplace(static_cast<std::int64_t>(i), p.run_id);
      ++total;
    }
  }
  EXPECT_EQ(points.size(), total);
  ReportQuery h200;
  h200.machines = {"ci-h200-01"};
  EXPECT_EQ(once.series.size(), load_report_input(store, h200, nullptr).series.size());
  // --last applies to each machine: three runs of each.
  q.machines = {"GPU-0a1b2c3d-4e5f-4061-8273-000000000007", "ci-h200-01"};
  q.last = 3;
  EXPECT_EQ(load_report_input(store, q, nullptr).runs.size(), 6u);
  EXPECT_EQ(q.machines_text(), "GPU-0a1b2c3d-4e5f-4061-8273-000000000007, ci-h200-01");
  EXPECT_EQ(all.machines_text(), "all");
  // What was read is named as every command names a machine, in the order asked, each machine once (a nightly
  // asks by id).
  const std::string h200_name = "ci-h200-01 (NVIDIA H200, GPU-6f1c0d2a)";
  EXPECT_EQ(load_report_input(store, q, nullptr).query.machines_text(),
            "dev-h100-07 (NVIDIA H100 80GB HBM3, GPU-0a1b2c3d), " + h200_name);
  q.machines = {h200_id, "ci-h200-01"};
  EXPECT_EQ(load_report_input(store, q, nullptr).query.machines_text(), h200_name);
  EXPECT_EQ(load_report_input(store, all, nullptr).query.machines_text(), "all");
}

// As every command names a machine (core machine_name): the hostname and the start of the GPU UUID, which
// tells apart two machines of one hostname; without a hostname or a GPU name, the UUID.
TEST(MachineNames, EachByHostnameAndTheStartOfItsGpuUuid) {
  auto row = [](std::int64_t id, const std::string& fingerprint, const std::string& host) {
    db::MachineRow m;
    m.id = id;
    m.fingerprint = fingerprint;
    m.machine.hostname = host;
    return m;
  };
  const std::vector<db::MachineRow> machines = {row(1, "GPU-a", "runner"), row(2, "GPU-b", "runner"),
                                                row(3, "GPU-c", "dev-07"), row(4, "GPU-d", "")};
  EXPECT_EQ(machine_names(machines, {3, 2, 4}),
            (std::vector<std::string>{"dev-07 (GPU-c)", "runner (GPU-b)", "GPU-d"}));
  EXPECT_EQ(machine_names(machines, {1}), std::vector<std::string>{"runner (GPU-a)"});
  EXPECT_TRUE(machine_names(machines, {}).empty());
}

TEST_F(ReportInputTest, UnknownMachineIsAnInputErrorListingTheKnownOnes) {
  db::Store store = imported();
  ReportQuery q;
  q.machines = {"ci-h200-01", "no-such-host"};
  try {
    load_report_input(store, q, nullptr);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no-such-host"), std::string::npos);
    EXPECT_NE(what.find("ci-h200-01"), std::string::npos);
    EXPECT_NE(what.find("dev-h100-07"), std::string::npos);
  }
}

TEST_F(ReportInputTest, EmptyDatabaseGivesAnEmptyReport) {
  db::Store store((dir_ / "empty.db").string());
  ReportInput in = load_report_input(store, {}, nullptr);
  EXPECT_TRUE(in.runs.empty());
  ReportModel model = build_report_model(in);
  EXPECT_NE(render_html(model).find("No runs to report."), std::string::npos);
  EXPECT_NE(render_markdown(model).find("No runs to report."), std::string::npos);
}

}  // namespace
}  // namespace gpuperf::reports
