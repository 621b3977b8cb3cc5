#include <gtest/gtest.h>

#include "profiler/summary_table.hpp"

namespace gpuperf {
namespace {

Measurement metric(const char* name, const char* unit, std::vector<double> samples) {
  Measurement m;
  m.metric = MetricInfo{name, unit, false, false};
  m.samples = std::move(samples);
  m.summary = summarize(m.samples);
  return m;
}

TEST(FormatDuration, PicksAFittingUnit) {
  EXPECT_EQ(format_duration_ns(850), "850 ns");
  EXPECT_EQ(format_duration_ns(5250), "5.250 us");
  EXPECT_EQ(format_duration_ns(52314), "52.31 us");
  EXPECT_EQ(format_duration_ns(1234567), "1.235 ms");
  EXPECT_EQ(format_duration_ns(2.5e9), "2.500 s");
}

TEST(RunSummary, Golden) {
  gpuperf::Run run;
  Result ok;
  ok.instance = {"memory/coalesced", {}};
  std::vector<double> d(25, 52000.0);
  d[0] = 51000;
  d[24] = 53000;
  ok.metrics = {metric("duration", "ns", d), metric("gbps", "GB/s", {2580.6})};
  Result tiled;
  tiled.instance = {"matmul/tiled", {{"n", std::int64_t{1024}}, {"tile", std::int64_t{16}}}};
  tiled.metrics = {metric("duration", "ns", std::vector<double>(30, 277536.0)), metric("gbps", "GB/s", {45.3}),
                   metric("gflops", "GFLOP/s", {7737.6})};
  tiled.message = "3 of 30 samples throttled (SM clock below 1782 MHz)";
  Result wrong;
  wrong.instance = {"matmul/naive", {{"n", std::int64_t{1000}}}};
  wrong.status = Status::incorrect;
  wrong.message = "c[0,999] = nan, expected 1.5 (tolerance 0.01); 1000 of 1000000 elements wrong (input seed 5)";
  run.results = {ok, tiled, wrong};
  EXPECT_EQ(format_run_summary(run),
            "instance                         median    +/-    GB/s  GFLOP/s   n  status\n"
            "memory/coalesced               52.00 us  0.00%  2580.6        -  25  ok\n"
            "matmul/tiled[n=1024,tile=16]  277.54 us  0.00%    45.3   7737.6  30  ok\n"
            "matmul/naive[n=1000]                  -      -       -        -   -  incorrect\n"
            "\n"
            "3 instances: 2 ok, 1 incorrect\n"
            "  matmul/tiled[n=1024,tile=16]: 3 of 30 samples throttled (SM clock below 1782 MHz)\n"
            "  matmul/naive[n=1000]: c[0,999] = nan, expected 1.5 (tolerance 0.01); 1000 of 1000000 elements "
            "wrong (input seed 5)\n");
}

}  // namespace
}  // namespace gpuperf
