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
#include "profiler/cupti/range_backend_loader.hpp"
#include "profiler/cupti/sass_backend.hpp"
#include "profiler/metric_device.hpp"
#include "profiler/source_line_pass.hpp"
#include "tests/collector/probe_inplace.hpp"

namespace gpuperf {
namespace {

const char* const kInstances[] = {"memory/coalesced", "memory/strided[stride=32]", "matmul/naive[n=1024]",
                                  "matmul/tiled[n=1024,tile=16]"};

struct Live {
  InstanceRef ref;
  std::unique_ptr<Workload> workload;
};

Live prepare(const std::string& display_name) {
  Registry& registry = Registry::global();
  register_builtin_benchmarks(registry);
  for (auto& ref : registry.instances(".*")) {
    if (ref.instance().display_name() != display_name) continue;
    Live l{ref, ref.benchmark->make(ref.params, 7)};
    l.workload->poison_outputs(nullptr);
    l.workload->launch(nullptr);
    const Verification v = l.workload->verify(nullptr);
    EXPECT_TRUE(v.ok) << display_name << ": " << v.message;
    return l;
  }
  ADD_FAILURE() << "no instance " << display_name;
  return {};
}

// Mean launch time (us) of `w` over `n` back-to-back launches.
double launch_us(Workload& w, int n) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int i = 0; i < n; ++i) w.launch(nullptr);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return 1000.0 * ms / n;
}

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

// The back end alone, as CUPTI's calls go: enable, one launch, flush, disable, twice; what came back.
TEST(SourceLinesGpu, BackEndAloneCountsOneLaunch) {
  if (!testing::gpu_available()) GTEST_SKIP() << "no CUDA device";
  SourceLineCollector& pass = the_pass();
  if (!pass.unavailable().empty()) GTEST_SKIP() << "no source lines here: " << pass.unavailable();
  const cupti::SassBackendFactory& factory = cupti::load_sass_backend();
  auto device = make_cuda_device_ops(0);
  auto backend = factory.open_device(0, device->cu_context());
  const auto offered = backend->chip_metrics();
  std::printf("%s offers %zu SASS metrics\n", backend->chip_name().c_str(), offered.size());
  backend->configure({"smsp__sass_inst_executed", "smsp__sass_sectors_mem_global"});
  Live l = prepare("memory/coalesced");
  ASSERT_TRUE(l.workload);
  for (int round = 0; round < 2; ++round) {
    backend->enable();
    l.workload->launch(nullptr);
    cudaDeviceSynchronize();
    const auto values = backend->flush();
    backend->disable();
    double inst = 0, sectors = 0;
    std::size_t located = 0;
    for (const auto& v : values) {
      (v.metric == 0 ? inst : sectors) += static_cast<double>(v.value);
      located += backend->locate(v.cubin_crc, v.function, v.pc_offset).kind == cupti::SassLocation::Kind::line;
    }
    std::printf("round %d: %zu records (%zu with a line), inst %.0f, sectors %.0f\n", round, values.size(), located,
                inst, sectors);
    EXPECT_GT(values.size(), 0u);
    EXPECT_EQ(located, values.size());
  }
}

TEST(SourceLinesGpu, StridedCoalescedMatmulAndTheSumsAgainstKernelCounters) {
  if (!testing::gpu_available()) GTEST_SKIP() << "no CUDA device";
  SourceLineCollector& pass = the_pass();
  if (!pass.unavailable().empty()) GTEST_SKIP() << "no source lines here: " << pass.unavailable();

  std::vector<Live> live;
  for (const char* name : kInstances) live.push_back(prepare(name));
  std::vector<ProfileTarget> targets;
  for (auto& l : live) targets.push_back({&l.ref, l.workload.get()});

  // The pass first, before any Range Profiler session in this process; then the kernel-level counters of the
  // same launches (Range Profiler); then the pass again, which must give the same counts.
  const double before_us = launch_us(*live[0].workload, 20);
  const auto lines = pass.collect_batch(targets, nullptr);
  const double after_us = launch_us(*live[0].workload, 20);
  std::printf("memory/coalesced launch: %.1f us before the pass, %.1f us after it\n", before_us, after_us);
  // Disabled means unpatched: timings after the pass are the kernel's own.
  EXPECT_LT(after_us, 1.3 * before_us);

  std::vector<std::string> kernel_metrics = {"instructions", "gld_efficiency", "gst_efficiency",
                                             "shared_load_transactions", "shared_store_transactions"};
  const std::vector<std::string> sass = list_chip_metrics(device_chip_name(0), "smsp__sass");
  for (const char* raw : {"smsp__sass_sectors_mem_global.sum", "smsp__sass_sectors_mem_global_ideal.sum",
                          "smsp__sass_data_bytes_mem_global_op_ld.sum", "smsp__sass_data_bytes_mem_global_op_st.sum",
                          "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum"}) {
    if (std::find(sass.begin(), sass.end(), raw) != sass.end()) {
      kernel_metrics.push_back(raw);
    } else {
      std::printf("not a metric of this chip: %s\n", raw);
    }
  }
  auto collector = make_cupti_collector(0, kernel_metrics);
  ASSERT_EQ(collector->environment_error(), "");
  const auto kernel = collector->collect_batch(targets, nullptr);
  const auto again = pass.collect_batch(targets, nullptr);
  ASSERT_EQ(again.size(), lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(again[i].status, Status::ok) << kInstances[i] << " after a Range Profiler session: " << again[i].message;
    EXPECT_EQ(sums(again[i]).inst, sums(lines[i]).inst) << kInstances[i];
  }

  ASSERT_EQ(lines.size(), targets.size());
  for (std::size_t i = 0; i < lines.size(); ++i) {
    print(kInstances[i], lines[i]);
    ASSERT_EQ(lines[i].status, Status::ok) << kInstances[i] << ": " << lines[i].message;
    ASSERT_FALSE(lines[i].lines.empty()) << kInstances[i];
    for (const auto& l : lines[i].lines) {
      EXPECT_GT(l.line, 0) << kInstances[i] << " " << l.function << "+" << l.sass_offset << ": built with -lineinfo";
    }
    std::map<std::string, double> k;
    for (const auto& m : kernel[i]) {
      EXPECT_EQ(m.status, Status::ok) << m.metric.name << ": " << m.message;
      if (!m.samples.empty()) k[m.metric.name] = m.samples[0];
    }
    const Sums s = sums(lines[i]);
    auto kv = [&k](const char* name) { return k.count(name) ? k[name] : -1.0; };
    // Sectors of the loads and of the stores from the bytes they used and their efficiency (bytes used per
    // 32-byte sector fetched, in %).
    const double k_ld = kv("smsp__sass_data_bytes_mem_global_op_ld.sum") / (0.32 * kv("gld_efficiency"));
    const double k_st = kv("smsp__sass_data_bytes_mem_global_op_st.sum") / (0.32 * kv("gst_efficiency"));
    std::printf(
        "  sums: inst %.0f (kernel %.0f); sectors ld+st %.0f (kernel %.0f), ideal %.0f (kernel %.0f); ld %.0f "
        "(kernel %.0f); st %.0f (kernel %.0f); ld requests %.0f (kernel %.0f); shared wavefronts %.0f (kernel "
        "ld+st %.0f)\n",
        s.inst, kv("instructions"), s.ld + s.st, kv("smsp__sass_sectors_mem_global.sum"), s.ld_ideal + s.st_ideal,
        kv("smsp__sass_sectors_mem_global_ideal.sum"), s.ld, k_ld, s.st, k_st, s.ld_req,
        kv("smsp__sass_inst_executed_op_global_ld.sum"), s.shared,
        kv("shared_load_transactions") + kv("shared_store_transactions"));
    // Counts, not samples: the lines add up to the kernel's counters exactly.
    EXPECT_EQ(s.inst, kv("instructions")) << kInstances[i];
    if (k.count("smsp__sass_sectors_mem_global.sum")) {
      EXPECT_EQ(s.ld + s.st, kv("smsp__sass_sectors_mem_global.sum")) << kInstances[i];
    }
    if (k.count("smsp__sass_sectors_mem_global_ideal.sum")) {
      EXPECT_EQ(s.ld_ideal + s.st_ideal, kv("smsp__sass_sectors_mem_global_ideal.sum")) << kInstances[i];
    }
    if (k.count("smsp__sass_data_bytes_mem_global_op_ld.sum") && kv("gld_efficiency") > 0) {
      EXPECT_NEAR(s.ld, k_ld, 1e-6 * k_ld + 0.5) << kInstances[i];
    }
    if (k.count("smsp__sass_data_bytes_mem_global_op_st.sum") && kv("gst_efficiency") > 0) {
      EXPECT_NEAR(s.st, k_st, 1e-6 * k_st + 0.5) << kInstances[i];
    }
    if (k.count("smsp__sass_inst_executed_op_global_ld.sum")) {
      EXPECT_EQ(s.ld_req, kv("smsp__sass_inst_executed_op_global_ld.sum")) << kInstances[i];
    }
    EXPECT_NEAR(s.shared, kv("shared_load_transactions") + kv("shared_store_transactions"), 0.01 * s.shared + 1)
        << kInstances[i];
  }

  // The stride-32 copy's load line fetches 8 sectors for every one it uses; the coalesced one, exactly its ideal.
  const SourceLine& coalesced = heaviest_load(lines[0]);
  const SourceLine& strided = heaviest_load(lines[1]);
  EXPECT_EQ(coalesced.global_ld_sectors, coalesced.global_ld_sectors_ideal) << coalesced.text;
  EXPECT_DOUBLE_EQ(strided.global_ld_sectors, 8 * strided.global_ld_sectors_ideal) << strided.text;
  EXPECT_NE(strided.text.find("in[src]"), std::string::npos) << strided.text;
  // Its store, on the same line, is coalesced.
  EXPECT_EQ(strided.global_st_sectors, strided.global_st_sectors_ideal);

  // Naive matmul reads A and B from global memory on its inner-product line, with no shared memory; tiled
  // loads tiles once per 16 steps and reads them from shared memory.
  const Sums naive = sums(lines[2]), tiled = sums(lines[3]);
  EXPECT_EQ(naive.shared, 0);
  EXPECT_GT(tiled.shared, 0);
  EXPECT_GT(naive.ld, 4 * tiled.ld);
  EXPECT_NE(heaviest_load(lines[2]).text.find("b[k * n + col]"), std::string::npos) << heaviest_load(lines[2]).text;
}

// Every instance of the default suite, one at a time: lines with line numbers and text, and their
// instructions summing to the kernel's.
TEST(SourceLinesGpu, EveryDefaultInstanceGetsItsLines) {
  if (!testing::gpu_available()) GTEST_SKIP() << "no CUDA device";
  SourceLineCollector& pass = the_pass();
  if (!pass.unavailable().empty()) GTEST_SKIP() << "no source lines here: " << pass.unavailable();
  auto collector = make_cupti_collector(0, {"instructions"});
  ASSERT_EQ(collector->environment_error(), "");
  Registry& registry = Registry::global();
  register_builtin_benchmarks(registry);
  for (const auto& ref : registry.instances()) {
    const std::string name = ref.instance().display_name();
    Live l = prepare(name);
    if (!l.workload) continue;
    const auto k = collector->collect_batch({ProfileTarget{&l.ref, l.workload.get()}}, nullptr);
    const auto s = pass.collect_batch({ProfileTarget{&l.ref, l.workload.get()}}, nullptr);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].status, Status::ok) << name << ": " << s[0].message;
    const Sums sum = sums(s[0]);
    const double instructions = k[0][0].samples.empty() ? -1 : k[0][0].samples[0];
    std::size_t with_text = 0;
    for (const auto& line : s[0].lines) {
      EXPECT_GT(line.line, 0) << name << " " << line.function << "+" << line.sass_offset;
      with_text += line.text.empty() ? 0 : 1;
    }
    const SourceLine* heaviest = nullptr;
    for (const auto& line : s[0].lines) {
      if (heaviest == nullptr || line.inst_executed > heaviest->inst_executed) heaviest = &line;
    }
    std::printf(
        "%-45s %2zu lines (%zu with text), inst %.0f (kernel %.0f), ld %.0f/%.0f st %.0f/%.0f shared %.0f/%.0f; "
        "heaviest :%lld %s%s%s\n",
        name.c_str(), s[0].lines.size(), with_text, sum.inst, instructions, sum.ld, sum.ld_ideal, sum.st, sum.st_ideal,
        sum.shared, sum.shared_ideal, heaviest ? static_cast<long long>(heaviest->line) : 0LL,
        heaviest ? heaviest->text.c_str() : "", s[0].message.empty() ? "" : " | ", s[0].message.c_str());
    EXPECT_EQ(sum.inst, instructions) << name;
  }
}

}  // namespace
}  // namespace gpuperf
