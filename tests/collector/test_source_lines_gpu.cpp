// The source-line pass on a real GPU (label gpu; skips without one): the strided copy's load line at 8x its
// ideal sectors and the coalesced one at 1x, naive against tiled matmul, and the lines' sums against the
// kernel-level counters of the Range Profiler. Its own executable: the pass must follow module loads from
// before the first kernel of the suite runs, which another test in the same process would have launched.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/benchmark.hpp"
#include "profiler/collector.hpp"
#include "profiler/runner.hpp"
#include "profiler/source_line_pass.hpp"
#include "tests/collector/probe_inplace.hpp"

namespace gpuperf {
namespace {

const char* const kInstances[] = {"memory/coalesced", "memory/strided[stride=32]", "matmul/naive[n=1024]",
                                  "matmul/tiled[n=1024,tile=16]"};

struct Sums {
  double inst = 0, ld = 0, ld_ideal = 0, st = 0, st_ideal = 0, ld_req = 0, shared = 0, shared_ideal = 0;
};
Sums sums(const SourceLines& s) {
  Sums out;
  for (const auto& l : s.lines) {
    out.inst += l.inst_executed;
    out.ld += l.global_ld_sectors;
    out.ld_ideal += l.global_ld_sectors_ideal;
    out.st += l.global_st_sectors;
    out.st_ideal += l.global_st_sectors_ideal;
    out.ld_req += l.global_ld_requests;
    out.shared += l.shared_wavefronts;
    out.shared_ideal += l.shared_wavefronts_ideal;
  }
  return out;
}

// The line with the most global load sectors.
const SourceLine& heaviest_load(const SourceLines& s) {
  return *std::max_element(s.lines.begin(), s.lines.end(), [](const SourceLine& a, const SourceLine& b) {
    return a.global_ld_sectors < b.global_ld_sectors;
  });
}

void print(const std::string& name, const SourceLines& s) {
  std::printf("%s: status %s, %zu lines, %lld launch(es)%s%s\n", name.c_str(), to_string(s.status), s.lines.size(),
              static_cast<long long>(s.launches), s.message.empty() ? "" : ": ", s.message.c_str());
  for (const auto& l : s.lines) {
    const auto slash = l.file.rfind('/');
    std::printf(
        "  %s:%lld +0x%llx inst %.0f thr %.0f ld %.0f/%.0f (req %.0f) st %.0f/%.0f (req %.0f) shared %.0f/%.0f "
        "local %.0f | %s\n",
        slash == std::string::npos ? l.file.c_str() : l.file.c_str() + slash + 1, static_cast<long long>(l.line),
        static_cast<unsigned long long>(l.sass_offset), l.inst_executed, l.thread_inst_executed, l.global_ld_sectors,
        l.global_ld_sectors_ideal, l.global_ld_requests, l.global_st_sectors, l.global_st_sectors_ideal,
        l.global_st_requests, l.shared_wavefronts, l.shared_wavefronts_ideal, l.local_sectors, l.text.c_str());
  }
}

// The pass, made once, before any kernel of the suite has loaded its module.
SourceLineCollector& the_pass() {
  static std::unique_ptr<SourceLineCollector> pass = make_cupti_source_line_collector(SourceLineOptions{});
  return *pass;
}

std::vector<InstanceRef> select(const std::vector<std::string>& names) {
  Registry& registry = Registry::global();
  register_builtin_benchmarks(registry);
  std::vector<InstanceRef> out;
  for (const auto& name : names) {
    for (const auto& ref : registry.instances(".*")) {
      if (ref.instance().display_name() == name) out.push_back(ref);
    }
  }
  EXPECT_EQ(out.size(), names.size());
  return out;
}

// `run`'s own path: verify, time (quick), the Range Profiler's metrics per group, then the source-line pass.
gpuperf::Run run_with_lines(const std::vector<InstanceRef>& instances, const std::vector<std::string>& metrics,
                            std::size_t max_group) {
  auto collector = make_cupti_collector(0, metrics);
  EXPECT_EQ(collector->environment_error(), "");
  RunOptions o;
  o.timing = TimingOptions::quick();
  o.seed = 7;
  o.max_group = max_group;
  o.collect = [&](const std::vector<ProfileTarget>& t, StreamHandle s) { return collector->collect_batch(t, s); };
  o.collect_lines = [](const std::vector<ProfileTarget>& t, StreamHandle s) { return the_pass().collect_batch(t, s); };
  return run_benchmarks(instances, o);
}

double value(const Result& r, const std::string& metric) {
  const Measurement* m = r.find(metric);
  return m != nullptr && m->status == Status::ok && !m->samples.empty() ? m->samples[0] : -1.0;
}

// memory/coalesced's median duration (ns) timed before any pass of this process (the first test), to hold
// the one timed after passes against: a kernel left instrumented runs about 10x slower.
double g_coalesced_before_ns = 0;

// The four reference instances in groups of two (two passes, the second after a Range Profiler session and a
// timing in between): the strided and coalesced load lines, naive against tiled, the sums against the kernel.
TEST(SourceLinesGpu, StridedCoalescedMatmulAndTheSumsAgainstKernelCounters) {
  if (!testing::gpu_available()) GTEST_SKIP() << "no CUDA device";
  SourceLineCollector& pass = the_pass();
  if (!pass.unavailable().empty()) GTEST_SKIP() << "no source lines here: " << pass.unavailable();

  std::vector<std::string> metrics = {"instructions", "gld_efficiency", "gst_efficiency", "shared_load_transactions",
                                      "shared_store_transactions"};
  const std::vector<std::string> sass = list_chip_metrics(device_chip_name(0), "smsp__sass");
  for (const char* raw : {"smsp__sass_sectors_mem_global.sum", "smsp__sass_data_bytes_mem_global_op_ld.sum",
                          "smsp__sass_data_bytes_mem_global_op_st.sum", "smsp__sass_inst_executed_op_global_ld.sum"}) {
    if (std::find(sass.begin(), sass.end(), raw) != sass.end()) {
      metrics.push_back(raw);
    } else {
      std::printf("not a metric of this chip: %s\n", raw);
    }
  }
  const std::vector<std::string> names(std::begin(kInstances), std::end(kInstances));
  const gpuperf::Run run = run_with_lines(select(names), metrics, 2);
  ASSERT_EQ(run.results.size(), names.size());
  if (const Measurement* d = run.results[0].find("duration")) g_coalesced_before_ns = d->summary.median;

  for (std::size_t i = 0; i < run.results.size(); ++i) {
    const Result& r = run.results[i];
    ASSERT_EQ(r.status, Status::ok) << names[i] << ": " << r.message;
    print(names[i], r.source);
    ASSERT_EQ(r.source.status, Status::ok) << names[i] << ": " << r.source.message;
    ASSERT_FALSE(r.source.lines.empty()) << names[i];
    for (const auto& l : r.source.lines) {
      EXPECT_GT(l.line, 0) << names[i] << " " << l.function << "+" << l.sass_offset << ": built with -lineinfo";
    }
    const Sums s = sums(r.source);
    // Sectors of the loads and of the stores from the bytes they used and their efficiency (bytes used per
    // 32-byte sector fetched, in %).
    const double k_ld = value(r, "smsp__sass_data_bytes_mem_global_op_ld.sum") / (0.32 * value(r, "gld_efficiency"));
    const double k_st = value(r, "smsp__sass_data_bytes_mem_global_op_st.sum") / (0.32 * value(r, "gst_efficiency"));
    const double k_shared = value(r, "shared_load_transactions") + value(r, "shared_store_transactions");
    std::printf(
        "  sums: inst %.0f (kernel %.0f); sectors ld+st %.0f (kernel %.0f); ld %.0f (kernel %.0f); st %.0f "
        "(kernel %.0f); ld requests %.0f (kernel %.0f); shared wavefronts %.0f (kernel ld+st %.0f)\n",
        s.inst, value(r, "instructions"), s.ld + s.st, value(r, "smsp__sass_sectors_mem_global.sum"), s.ld, k_ld, s.st,
        k_st, s.ld_req, value(r, "smsp__sass_inst_executed_op_global_ld.sum"), s.shared, k_shared);
    // Counts, not samples: the lines add up to the kernel's counters exactly.
    EXPECT_EQ(s.inst, value(r, "instructions")) << names[i];
    if (r.find("smsp__sass_sectors_mem_global.sum") != nullptr) {
      EXPECT_EQ(s.ld + s.st, value(r, "smsp__sass_sectors_mem_global.sum")) << names[i];
    }
    if (r.find("smsp__sass_data_bytes_mem_global_op_ld.sum") != nullptr && value(r, "gld_efficiency") > 0) {
      EXPECT_NEAR(s.ld, k_ld, 1e-6 * k_ld + 0.5) << names[i];
    }
    if (r.find("smsp__sass_data_bytes_mem_global_op_st.sum") != nullptr && value(r, "gst_efficiency") > 0) {
      EXPECT_NEAR(s.st, k_st, 1e-6 * k_st + 0.5) << names[i];
    }
    if (r.find("smsp__sass_inst_executed_op_global_ld.sum") != nullptr) {
      EXPECT_EQ(s.ld_req, value(r, "smsp__sass_inst_executed_op_global_ld.sum")) << names[i];
    }
    EXPECT_NEAR(s.shared, k_shared, 0.01 * s.shared + 1) << names[i];
  }

  // The stride-32 copy's load line fetches 8 sectors for every one it uses; the coalesced one, exactly its ideal.
  const SourceLine& coalesced = heaviest_load(run.results[0].source);
  const SourceLine& strided = heaviest_load(run.results[1].source);
  EXPECT_EQ(coalesced.global_ld_sectors, coalesced.global_ld_sectors_ideal) << coalesced.text;
  EXPECT_DOUBLE_EQ(strided.global_ld_sectors, 8 * strided.global_ld_sectors_ideal) << strided.text;
  EXPECT_NE(strided.text.find("in[src]"), std::string::npos) << strided.text;
  EXPECT_EQ(strided.global_st_sectors, strided.global_st_sectors_ideal);  // its store, on the same line

  // Naive matmul reads A and B from global memory on its inner-product line, with no shared memory; tiled
  // loads tiles once per 16 steps and reads them from shared memory.
  const Sums naive = sums(run.results[2].source), tiled = sums(run.results[3].source);
  EXPECT_EQ(naive.shared, 0);
  EXPECT_GT(tiled.shared, 0);
  EXPECT_GT(naive.ld, 4 * tiled.ld);
  EXPECT_NE(heaviest_load(run.results[2].source).text.find("b[k * n + col]"), std::string::npos)
      << heaviest_load(run.results[2].source).text;
}

// Every instance of the default suite through `run`'s path: lines with line numbers and text, and their
// instructions summing to the kernel's.
TEST(SourceLinesGpu, EveryDefaultInstanceGetsItsLines) {
  if (!testing::gpu_available()) GTEST_SKIP() << "no CUDA device";
  SourceLineCollector& pass = the_pass();
  if (!pass.unavailable().empty()) GTEST_SKIP() << "no source lines here: " << pass.unavailable();
  Registry& registry = Registry::global();
  register_builtin_benchmarks(registry);
  const gpuperf::Run run = run_with_lines(registry.instances(), {"instructions"}, 64);
  for (const Result& r : run.results) {
    const std::string name = r.instance.display_name();
    EXPECT_EQ(r.source.status, Status::ok) << name << ": " << r.source.message;
    const Sums sum = sums(r.source);
    std::size_t with_text = 0;
    const SourceLine* heaviest = nullptr;
    for (const auto& line : r.source.lines) {
      EXPECT_GT(line.line, 0) << name << " " << line.function << "+" << line.sass_offset;
      with_text += line.text.empty() ? 0 : 1;
      if (heaviest == nullptr || line.inst_executed > heaviest->inst_executed) heaviest = &line;
    }
    std::printf(
        "%-36s %2zu lines (%zu with text), inst %.0f (kernel %.0f), ld %.0f/%.0f st %.0f/%.0f shared "
        "%.0f/%.0f; heaviest :%lld %s%s%s\n",
        name.c_str(), r.source.lines.size(), with_text, sum.inst, value(r, "instructions"), sum.ld, sum.ld_ideal,
        sum.st, sum.st_ideal, sum.shared, sum.shared_ideal, heaviest ? static_cast<long long>(heaviest->line) : 0LL,
        heaviest ? heaviest->text.c_str() : "", r.source.message.empty() ? "" : " | ", r.source.message.c_str());
    EXPECT_EQ(sum.inst, value(r, "instructions")) << name;
    // Timed after the first test's passes: the kernels' own code again, not the instrumented one.
    if (name == "memory/coalesced" && g_coalesced_before_ns > 0) {
      const double after_ns = r.find("duration")->summary.median;
      std::printf("memory/coalesced median %.0f ns before any pass, %.0f ns after two\n", g_coalesced_before_ns,
                  after_ns);
      EXPECT_LT(after_ns, 1.25 * g_coalesced_before_ns);
    }
  }
}

}  // namespace
}  // namespace gpuperf
