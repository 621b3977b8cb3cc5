// The real CUPTI back end's host side (libgpuperf_cupti.so + libcupti), which needs no GPU: the H200's
// chip GH100 must know every Perfworks name in gpuperf's traits table, and the default set must fit in the
// pass count measured on the H200.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <tuple>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "core/perfworks_spelling.hpp"
#include "profiler/chip_plan.hpp"
#include "profiler/collector.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/metric_catalog.hpp"
#include "profiler/metric_plan.hpp"
#include "profiler/record/inject/pass_groups.hpp"
#include "profiler/record/recorder/recorder.hpp"
#include "profiler/speed_of_light.hpp"

namespace gpuperf {
namespace {

std::unique_ptr<cupti::RangeProfilerBackend> gh100() { return cupti::load_backend().open_host("GH100"); }

TEST(CuptiHost, EveryPerfworksNameOfTheTraitsTableExistsOnGH100) {
  auto backend = gh100();
  for (const auto& t : known_metrics()) {
    for (const auto& name : t.perfworks) {
      auto props = backend->metric_properties(name);
      ASSERT_TRUE(props.has_value()) << name;
      if (t.info.unit == "%") {
        EXPECT_EQ(props->dim_unit, "percent") << name;
      }
      if (t.info.unit == "bytes") {
        EXPECT_EQ(props->dim_unit, "byte") << name;
      }
    }
  }
  EXPECT_FALSE(backend->metric_properties("dram__bytes_read.total").has_value());
}

TEST(CuptiHost, DefaultSetNeedsFewPasses) {
  auto backend = gh100();
  auto catalog = backend_catalog(*backend);
  auto plan = plan_metrics(resolve_metric_requests(default_profile_metrics(), catalog.get()));
  const std::size_t passes = backend->add_configuration(plan.perfworks);
  std::printf("default set: %zu Perfworks metrics, %zu passes on GH100 in one configuration\n", plan.perfworks.size(),
              passes);
  // Measured on GH100 with CUPTI 13.0: SASS-patched metrics never share a pass with hardware counters; the
  // memory and shared-memory counters need 2 passes. Speed of light costs the most: sm__throughput is the
  // largest of some twenty pipe and unit utilisations (8 passes alone), gpu__compute_memory_throughput of the
  // L1, L2 and DRAM ones (5 alone); together with the rest, 10 passes of hardware counters. Instructions, pipes
  // and stall reasons fit in those passes.
  EXPECT_GE(passes, 2u);
  EXPECT_LE(passes, 11u);
  // Configurations are independent: a single hardware counter fits in one pass.
  EXPECT_EQ(backend->add_configuration({"dram__bytes_read.sum"}), 1u);
  // Kept apart, the SASS metrics and the hardware counters need no more passes in total.
  // As the collector configures them: counters and SASS metrics in user ranges, speed of light apart.
  const auto passes_of = [&](const MetricPlan& p) {
    std::size_t n = 0;
    for (const auto& c : p.configurations) {
      std::vector<std::string> names;
      for (std::size_t i : c) names.push_back(p.perfworks[i]);
      n += backend->add_configuration(names);
    }
    return n;
  };
  ASSERT_EQ(plan.configurations.size(), 2u);
  const std::size_t planned = passes_of(plan);
  std::printf("as planned: %zu passes\n", planned);
  EXPECT_LE(planned, passes + 2);
  // So the collector profiles the default set in the one configuration (Collector::configure).
  EXPECT_LT(passes, planned);
  auto split = plan_metrics(resolve_metric_requests(default_profile_metrics(), catalog.get()), true);
  ASSERT_EQ(split.configurations.size(), 3u);
  EXPECT_EQ(passes_of(split), planned);
}

// record --metrics in a rank of a distributed job collects one pass a launch (pass_groups.hpp): GH100's default
// set packed so, every group one pass on the real host tables.
TEST(CuptiHost, TheDefaultSetPacksIntoOnePassGroupsOnGH100) {
  auto backend = gh100();
  auto catalog = backend_catalog(*backend);
  auto plan = plan_metrics(resolve_metric_requests(default_profile_metrics(), catalog.get()));
  std::size_t calls = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto packed = record::inject::pack_single_pass(plan.perfworks, [&](const std::vector<std::string>& m) {
    ++calls;
    return backend->add_configuration(m);
  });
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu metrics: %zu one-pass groups, %zu need more passes alone; %zu configurations, %.0f ms\n",
              plan.perfworks.size(), packed.groups.size(), packed.unfit.size(), calls, ms);
  for (std::size_t i : packed.unfit) std::printf("  more than one pass: %s\n", plan.perfworks[i].c_str());
  std::size_t placed = packed.unfit.size();
  for (const auto& g : packed.groups) {
    std::vector<std::string> names;
    for (std::size_t i : g) names.push_back(plan.perfworks[i]);
    EXPECT_EQ(backend->add_configuration(names), 1u);
    placed += g.size();
    std::printf("  group:");
    for (const auto& n : names) std::printf(" %s", n.c_str());
    std::printf("\n");
  }
  EXPECT_EQ(placed, plan.perfworks.size());
  EXPECT_FALSE(packed.groups.empty());
}

// record --metrics splits a single process's metrics over an identity's profiled launches (pass_groups.hpp): on
// GH100's tables the default set makes two groups, the speed-of-light throughputs (9 passes together) and the
// other 19 metrics (4), where balancing all 21 over three launches made 3 + 5 + 9 passes.
TEST(CuptiHost, TheDefaultSetSplitsIntoTheSpeedOfLightAndTheRestOnGH100) {
  auto backend = gh100();
  auto catalog = backend_catalog(*backend);
  const auto perfworks = plan_metrics(resolve_metric_requests(default_profile_metrics(), catalog.get())).perfworks;
  const record::inject::PassCount passes = [&](const std::vector<std::string>& m) {
    return backend->add_configuration(m);
  };
  const std::size_t n = record::inject::default_groups(perfworks, 3, passes);
  EXPECT_EQ(n, 2u);
  const auto groups = record::inject::split_passes(perfworks, n, passes);
  ASSERT_EQ(groups.size(), 2u);
  std::size_t total = 0;
  for (const auto& g : groups) {
    std::vector<std::string> names;
    for (std::size_t i : g) names.push_back(perfworks[i]);
    const std::size_t p = passes(names);
    total += p;
    std::printf("group of %zu metrics: %zu passes\n", names.size(), p);
  }
  std::vector<std::string> last;
  for (std::size_t i : groups.back()) last.push_back(perfworks[i]);
  EXPECT_EQ(last, (std::vector<std::string>{"sm__throughput.avg.pct_of_peak_sustained_elapsed",
                                            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}));
  std::vector<std::string> first;
  for (std::size_t i : groups.front()) first.push_back(perfworks[i]);
  EXPECT_LE(passes(first), 4u);
  // Fewer passes an identity than the 17 of three groups balanced over every metric (the split until 2026-11-27).
  EXPECT_LT(total, 17u);
}

TEST(CuptiHost, TyposGetCloseNamesFromTheChip) {
  auto backend = gh100();
  auto catalog = backend_catalog(*backend);
  try {
    check_perfworks_name("dram__bytes_red.sum", *catalog);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dram__bytes_read.sum"), std::string::npos) << e.what();
  }
  try {
    check_perfworks_name("sm__warps_active.avg.pct_of_peak_sustained_actve", *catalog);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sm__warps_active.avg.pct_of_peak_sustained_active"), std::string::npos)
        << e.what();
  }
}

TEST(CuptiHost, AChipCuptiDoesNotKnowIsAnUnsupportedDevice) {
  try {
    auto b = cupti::load_backend().open_host("GX999");
    FAIL() << "expected BackendError";
  } catch (const cupti::BackendError& e) {
    EXPECT_NE(std::string(e.what()).find("cuptiProfilerHostInitialize"), std::string::npos) << e.what();
  }
}

// The speed of light per chip (profiler/speed_of_light.hpp), asked of CUPTI 13's host API from the chip name alone:
// GH100 takes the TriageCompute throughputs, and the default set then needs 4 passes in one configuration (12 with
// today's names), so `record` collects all of it in every profiled launch (one group); GB100 takes them without the
// DRAMC one, which it refuses; GA100, AD102 and GB202 refuse them and keep today's names.
TEST(CuptiHost, TheSpeedOfLightNamesAreChosenPerChip) {
  const std::vector<std::string> def = default_profile_metrics();
  const auto has = [](const std::vector<std::string>& v, const char* n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  const std::vector<std::string> chosen = speed_of_light_for_chip(def, "GH100");
  for (const char* n : {"sol_sm_triage", "sol_l1tex_triage", "sol_lts_triage", "sol_dramc_triage", "dram_throughput"})
    EXPECT_TRUE(has(chosen, n)) << n;
  EXPECT_FALSE(has(chosen, "sm_throughput"));
  EXPECT_FALSE(has(chosen, "memory_throughput"));
  EXPECT_EQ(chosen.size(), def.size() + 2);  // two names became four
  auto host = gh100();
  const auto passes = [&](const std::vector<std::string>& names) {
    return host->add_configuration(plan_metrics(resolve_metric_requests(names, nullptr)).perfworks);
  };
  std::printf("default set on GH100: %zu passes with TriageCompute, %zu with today's names\n", passes(chosen),
              passes(def));
  EXPECT_LE(passes(chosen), 4u);
  EXPECT_GT(passes(def), passes(chosen));

  const std::vector<std::string> gb100 = speed_of_light_for_chip(def, "GB100");
  EXPECT_TRUE(has(gb100, "sol_sm_triage"));
  EXPECT_TRUE(has(gb100, "sol_lts_triage"));
  EXPECT_FALSE(has(gb100, "sol_dramc_triage"));
  for (const char* chip : {"GA100", "AD102", "GB202"}) EXPECT_EQ(speed_of_light_for_chip(def, chip), def) << chip;
  // An explicit list without today's speed-of-light names is left alone.
  EXPECT_EQ(speed_of_light_for_chip({"dram_throughput", "instructions"}, "GH100"),
            (std::vector<std::string>{"dram_throughput", "instructions"}));
}

// Inside a recorded program (inject_metrics.cpp): the recorder's two Perfworks lists, chosen at the first context by
// the chip, and the groups the chosen one is split into: one on GH100 (no partial identity), two on GA100.
TEST(CuptiHost, TheRecordedProgramChoosesTheTriageListAndOneGroupOnGH100) {
  const auto perfworks = [](const std::vector<std::string>& names) {
    return plan_metrics(resolve_metric_requests(names, nullptr)).perfworks;
  };
  const std::vector<std::string> def = default_profile_metrics();
  const std::vector<std::string> today = perfworks(def);
  const std::vector<std::string> triage = perfworks(with_triage_names(def, [](const std::string&) { return true; }));
  for (const char* chip : {"GH100", "GA100"}) {
    auto host = cupti::load_backend().open_host(chip);
    const record::inject::PassCount passes = [&](const std::vector<std::string>& m) {
      return host->add_configuration(m);
    };
    const AcceptsMetric accepts = [&](const std::string& m) {
      try {
        host->add_configuration({m});
        return true;
      } catch (const cupti::BackendError&) {
        return false;
      }
    };
    const std::vector<std::string> chosen = choose_speed_of_light(today, triage, accepts, passes);
    const bool gh = std::string(chip) == "GH100";
    EXPECT_EQ(chosen, gh ? triage : today) << chip;
    EXPECT_EQ(record::inject::default_groups(chosen, 3, passes), gh ? 1u : 2u) << chip;
  }
}

// Every chip of docs/gpus.md (Turing to Blackwell), asked of CUPTI 13's host API by name (profiler/chip_plan.hpp):
// every default metric resolves or says why not; what each chip is known to lack is said, and nothing more.
TEST(CuptiHost, EveryDefaultMetricResolvesOrSaysWhyOnEveryChip) {
  for (const std::string& chip : documented_chips()) {
    SCOPED_TRACE(chip);
    const ChipPlan plan = plan_for_chip(chip, {});
    ASSERT_FALSE(plan.metrics.empty());
    std::size_t unsupported = 0;
    for (const ChipMetric& m : plan.metrics) {
      EXPECT_TRUE(m.supported || !m.reason.empty()) << m.name << " is unsupported without a reason";
      EXPECT_TRUE(!m.supported || m.reason.empty()) << m.name;
      unsupported += m.supported ? 0 : 1;
    }
    // gpuperf's own counters exist from Turing on, some under another spelling (GB202's dram__bytes_op_read.sum).
    EXPECT_EQ(unsupported, 0u) << "a default metric is unsupported";
    for (const ChipMetric& m : plan.metrics) {
      if (m.name == "dram_bytes_read") {
        EXPECT_EQ(m.perfworks.front(), chip == "GB202" ? "dram__bytes_op_read.sum" : "dram__bytes_read.sum");
      }
    }
    EXPECT_GE(plan.passes, 1u);
    EXPECT_EQ(plan.bound, "yes");
    const bool hopper_or_b200 = chip == "GH100" || chip == "GB100";
    EXPECT_EQ(plan.speed_of_light == "TriageCompute", hopper_or_b200) << plan.speed_of_light;
    if (!hopper_or_b200) {
      EXPECT_EQ(plan.speed_of_light_why, chip + " has no TriageCompute names");
    }
    // Source lines: every chip offers the SASS counters the per-line pass reads (Turing 37 SASS metrics, GH100 60).
    EXPECT_TRUE(plan.source_lines_why.empty()) << plan.source_lines_why;
    EXPECT_GE(plan.sass_offered, 37u);
    // PM sampling takes one pass of some set on every chip CUPTI 13 configures it for.
    EXPECT_EQ(plan.pm_sampling.empty(), !plan.pm_why.empty());
    if (hopper_or_b200) {
      ASSERT_FALSE(plan.pm_sampling.empty());
      EXPECT_EQ(plan.pm_sampling.front(), "pm_sm_throughput");
    }
    std::printf("%s: %zu counters in %zu passes; speed of light %s; PM sampling %s; source lines %s\n", chip.c_str(),
                plan.perfworks, plan.passes, plan.speed_of_light.c_str(),
                plan.pm_sampling.empty() ? "no" : std::to_string(plan.pm_sampling.size()).c_str(),
                plan.source_lines_why.empty() ? "yes" : "no");
  }
}

TEST(CuptiHost, AChipPlanForAnUnknownChipIsBadInput) { EXPECT_THROW(plan_for_chip("GX999", {}), InputError); }

// GB202 names the DRAM byte counters dram__bytes_op_read/op_write.sum: the collector's resolution against the chip's
// catalog takes its spelling, so `run` there asks for counters the chip has; other chips keep the table's names.
TEST(CuptiHost, TheCollectorTakesTheChipsSpellingOfACounter) {
  for (const auto& [chip, read, written] : {std::tuple<const char*, const char*, const char*>{
                                                "GB202", "dram__bytes_op_read.sum", "dram__bytes_op_write.sum"},
                                            {"GH100", "dram__bytes_read.sum", "dram__bytes_write.sum"},
                                            {"GA102", "dram__bytes_read.sum", "dram__bytes_write.sum"}}) {
    SCOPED_TRACE(chip);
    auto host = cupti::load_backend().open_host(chip);
    auto catalog = backend_catalog(*host);
    const auto requests = resolve_metric_requests({"dram_bytes_read", "dram_bytes_written"}, catalog.get());
    ASSERT_EQ(requests.size(), 2u);
    EXPECT_EQ(requests[0].perfworks, std::vector<std::string>{read});
    EXPECT_EQ(requests[1].perfworks, std::vector<std::string>{written});
    EXPECT_EQ(host->add_configuration(plan_metrics(requests).perfworks), 1u);
  }
}

// `record --metrics default` on GB202, as the injected library plans it at the first context (inject_metrics.cpp's
// plan_groups: each counter in the chip's spelling, then the speed-of-light choice) and as the recorder stores it:
// the chip takes the set it is asked, and the C line maps back to every metric, the DRAM bytes included, with no
// warning of another chip's set. GH100 keeps the table's names.
TEST(CuptiHost, ARecordedProgramOnGB202AsksAndStoresTheChipsSpellings) {
  record::RecordOptions o;
  o.command = {"true"};
  o.metrics = "default";
  const auto today = record::plan_record_metrics(o, false);
  const auto triage = record::plan_triage_metrics(o);
  ASSERT_TRUE(today && triage);
  for (const auto& [chip, read] :
       {std::pair<const char*, const char*>{"GB202", "dram__bytes_op_read.sum"}, {"GH100", "dram__bytes_read.sum"}}) {
    SCOPED_TRACE(chip);
    auto host = cupti::load_backend().open_host(chip);
    const record::inject::PassCount passes = [&](const std::vector<std::string>& m) {
      return host->add_configuration(m);
    };
    const AcceptsMetric accepts = [&](const std::string& m) {
      try {
        host->add_configuration({m});
        return true;
      } catch (const cupti::BackendError&) {
        return false;
      }
    };
    std::vector<std::string> metrics = today->perfworks, triage_names = triage->perfworks;
    for (std::string& m : metrics) m = chip_spelling(m, accepts);
    for (std::string& m : triage_names) m = chip_spelling(m, accepts);
    const std::vector<std::string> line = choose_speed_of_light(metrics, triage_names, accepts, passes);
    EXPECT_GE(host->add_configuration(line), 1u);  // the chip takes the whole set

    record::ProcessRecord p;
    p.pid = 1;
    p.metric_names = line;
    std::vector<std::string> warnings;
    const MetricPlan stored = record::recorded_plan({p}, *today, triage, warnings);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    EXPECT_EQ(stored.perfworks, line);
    const auto dram = std::find_if(stored.requests.begin(), stored.requests.end(),
                                   [](const MetricRequest& r) { return r.name == "dram_bytes_read"; });
    ASSERT_NE(dram, stored.requests.end());
    EXPECT_EQ(dram->perfworks, std::vector<std::string>{read});
  }
}

}  // namespace
}  // namespace gpuperf
