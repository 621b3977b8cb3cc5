#include <gtest/gtest.h>

#include "core/metrics.hpp"

namespace gpuperf {
namespace {

TEST(Metrics, TraitsTableHasDirectionsAndUnits) {
  const MetricTraits* d = find_metric("duration");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->info.unit, "ns");
  EXPECT_FALSE(d->info.higher_is_better);
  EXPECT_FALSE(d->info.deterministic);
  const MetricTraits* g = find_metric("gld_efficiency");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->info.higher_is_better);
  EXPECT_TRUE(g->info.deterministic);
  EXPECT_EQ(g->perfworks.at(0), "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
  EXPECT_EQ(find_metric("shared_bank_conflicts")->perfworks.size(), 2u);
  EXPECT_EQ(find_metric("no_such_metric"), nullptr);
}

TEST(Metrics, DefaultProfileSetIsKnown) {
  for (const auto& name : default_profile_metrics()) {
    const MetricTraits* t = find_metric(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->source, MetricSource::profiler) << name;
  }
}

TEST(Metrics, RecordedProgramMetricsHaveTheirTraits) {
  struct Want {
    const char* name;
    const char* unit;
    bool deterministic;
  };
  for (const Want& w :
       {Want{"launches", "count", true}, Want{"gpu_time_total", "ns", false}, Want{"gpu_time_share", "%", false}}) {
    const MetricTraits* t = find_metric(w.name);
    ASSERT_NE(t, nullptr) << w.name;
    EXPECT_EQ(t->source, MetricSource::recorded) << w.name;
    EXPECT_EQ(t->info.unit, w.unit) << w.name;
    EXPECT_FALSE(t->info.higher_is_better) << w.name;
    EXPECT_EQ(t->info.deterministic, w.deterministic) << w.name;
    EXPECT_TRUE(t->perfworks.empty()) << w.name;
    // metric_info_for (the interchange reader's and the store's look-up) gives the table's traits, not a
    // guess from the name.
    MetricInfo info = metric_info_for(w.name);
    EXPECT_EQ(info.unit, w.unit) << w.name;
    EXPECT_EQ(info.deterministic, w.deterministic) << w.name;
  }
  // Nothing a benchmark run collects by default.
  for (const auto& name : default_profile_metrics()) EXPECT_NE(find_metric(name)->source, MetricSource::recorded);
}

TEST(Metrics, RawPerfworksNamesGetUnitsFromSuffix) {
  EXPECT_EQ(metric_info_for("sm__throughput.avg.pct_of_peak_sustained_elapsed").unit, "%");
  EXPECT_EQ(metric_info_for("dram__bytes_read.sum").unit, "bytes");
  MetricInfo inst = metric_info_for("smsp__inst_executed.sum");
  EXPECT_EQ(inst.unit, "count");
  EXPECT_TRUE(inst.deterministic);
}

}  // namespace
}  // namespace gpuperf
