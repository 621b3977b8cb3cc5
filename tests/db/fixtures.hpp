// Shared helpers of the store tests: temporary directories and runs with known statistics.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "core/result.hpp"

namespace gpuperf::testing {

// A fresh directory under $TMPDIR, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gpuperf-db-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

inline Machine h200(const std::string& host = "gpu-node-1", const std::string& uuid = "GPU-1111") {
  Machine m;
  m.hostname = host;
  m.gpu_name = "NVIDIA H200";
  m.gpu_uuid = uuid;
  m.cc = "9.0";
  m.sm_count = 132;
  m.driver = "580.159.04";
  m.cuda = "13.0";
  return m;
}

inline Measurement duration(std::vector<double> samples) {
  Measurement m;
  m.metric = MetricInfo{"duration", "ns", false, false};
  m.summary = summarize(samples);
  m.samples = std::move(samples);
  return m;
}

inline Measurement efficiency(double pct) { return single_value(MetricInfo{"gld_efficiency", "%", true, true}, pct); }

// A run of two instances: matmul/naive (duration + gld_efficiency) and matmul/tiled (duration, with SM
// clocks). `scale` multiplies every duration so series have known levels.
inline Run make_run(const std::string& uuid, const std::string& started_at, const std::string& branch = "main",
                    double scale = 1.0, const Machine& machine = h200()) {
  Run run;
  run.uuid = uuid;
  run.started_at = started_at;
  run.finished_at = started_at;
  run.commit = "abcdef0123456789" + uuid.substr(0, 4);
  run.branch = branch;
  run.label = "nightly";
  run.tool_version = "0.1.0";
  run.machine = machine;

  Result naive;
  naive.instance = BenchmarkInstance{"matmul/naive", {{"n", std::int64_t{1024}}}};
  naive.metrics.push_back(duration({100 * scale, 102 * scale, 98 * scale, 101 * scale}));
  naive.metrics.push_back(efficiency(56.25));
  run.results.push_back(naive);

  Result tiled;
  tiled.instance = BenchmarkInstance{"matmul/tiled", {{"n", std::int64_t{1024}}, {"tile", std::int64_t{16}}}};
  tiled.baseline = "matmul/naive";
  Measurement d = duration({50 * scale, 51 * scale, 49 * scale});
  d.sm_clock_mhz = {1980, 1980, 1755};
  tiled.metrics.push_back(d);
  run.results.push_back(tiled);
  return run;
}

// A run as `gpuperf record` stores one: the program's command line and exit status, and per kernel
// identity one duration sample per launch plus launches, gpu_time_total and gpu_time_share.
inline Run make_recorded_run(const std::string& uuid, const std::string& started_at,
                             std::optional<int> exit_status = 0) {
  Run run;
  run.uuid = uuid;
  run.started_at = started_at;
  run.finished_at = started_at;
  run.branch = "main";
  run.label = "record";
  run.tool_version = "0.1.0";
  run.command = "./train --epochs 2 --name 'run 1'";
  run.exit_status = exit_status;
  run.machine = h200();
  auto value = [](const char* name, const char* unit, bool deterministic, double v) {
    return single_value(MetricInfo{name, unit, false, deterministic}, v);
  };
  Result gemm;
  gemm.instance =
      BenchmarkInstance{"sgemm_128x64", {{"grid", std::string("64,32,1")}, {"block", std::string("256,1,1")}}};
  gemm.metrics.push_back(duration({3000, 3010, 2990}));
  gemm.metrics.push_back(value("launches", "count", true, 3));
  gemm.metrics.push_back(value("gpu_time_total", "ns", false, 9000));
  gemm.metrics.push_back(value("gpu_time_share", "%", false, 90));
  run.results.push_back(gemm);
  Result relu;
  relu.instance = BenchmarkInstance{"relu", {{"grid", std::string("1024,1,1")}, {"block", std::string("128,1,1")}}};
  relu.metrics.push_back(duration({1000}));
  relu.metrics.push_back(value("launches", "count", true, 1));
  relu.metrics.push_back(value("gpu_time_total", "ns", false, 1000));
  relu.metrics.push_back(value("gpu_time_share", "%", false, 10));
  run.results.push_back(relu);
  return run;
}

// One rank of a recorded distributed job (`torchrun` DDP): make_recorded_run's kernels plus an NCCL all-reduce
// of `comm_ns` GPU time in 84 launches, named as `gpuperf record` names kernels ("train/<kernel>").
inline Run make_ranked_run(const std::string& uuid, const std::string& started_at, int rank, int world_size,
                           std::optional<int> local_rank, double comm_ns = 1000) {
  Run run = make_recorded_run(uuid, started_at);
  run.rank = rank;
  run.world_size = world_size;
  run.local_rank = local_rank;
  run.machine.gpu_uuid = "GPU-" + std::to_string(rank) + "0000000-0000-0000-0000-000000000000";
  for (Result& r : run.results) r.instance.name = "train/" + r.instance.name;
  Result nccl;
  nccl.instance = BenchmarkInstance{"train/ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                                    {{"grid", std::string("2,1,1")}, {"block", std::string("640,1,1")}}};
  nccl.metrics.push_back(duration({comm_ns / 84, comm_ns / 84}));
  nccl.metrics.push_back(single_value(MetricInfo{"launches", "count", false, true}, 84));
  nccl.metrics.push_back(single_value(MetricInfo{"gpu_time_total", "ns", false, false}, comm_ns));
  nccl.metrics.push_back(
      single_value(MetricInfo{"gpu_time_share", "%", false, false}, 100 * comm_ns / (10000 + comm_ns)));
  run.results.push_back(nccl);
  return run;
}

}  // namespace gpuperf::testing

#include <gtest/gtest.h>

namespace gpuperf::testing {

// Field-by-field equality of two runs (samples, clocks and recomputed summaries included).
// Source lines (core/source_lines.hpp): every field, counters exactly (they are stored as doubles).
inline void expect_same_source(const SourceLines& a, const SourceLines& b) {
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.message, b.message);
  EXPECT_EQ(a.launches, b.launches);
  EXPECT_EQ(a.lines_total, b.lines_total);
  ASSERT_EQ(a.lines.size(), b.lines.size());
  for (std::size_t i = 0; i < a.lines.size(); ++i) {
    const SourceLine& x = a.lines[i];
    const SourceLine& y = b.lines[i];
    SCOPED_TRACE("source line " + std::to_string(i));
    EXPECT_EQ(x.file, y.file);
    EXPECT_EQ(x.line, y.line);
    EXPECT_EQ(x.function, y.function);
    EXPECT_EQ(x.sass_offset, y.sass_offset);
    EXPECT_EQ(x.text, y.text);
    EXPECT_EQ(x.inlined_at_file, y.inlined_at_file);
    EXPECT_EQ(x.inlined_at_line, y.inlined_at_line);
    EXPECT_EQ(x.inst_executed, y.inst_executed);
    EXPECT_EQ(x.thread_inst_executed, y.thread_inst_executed);
    EXPECT_EQ(x.global_ld_requests, y.global_ld_requests);
    EXPECT_EQ(x.global_st_requests, y.global_st_requests);
    EXPECT_EQ(x.global_ld_sectors, y.global_ld_sectors);
    EXPECT_EQ(x.global_ld_sectors_ideal, y.global_ld_sectors_ideal);
    EXPECT_EQ(x.global_st_sectors, y.global_st_sectors);
    EXPECT_EQ(x.global_st_sectors_ideal, y.global_st_sectors_ideal);
    EXPECT_EQ(x.shared_wavefronts, y.shared_wavefronts);
    EXPECT_EQ(x.shared_wavefronts_ideal, y.shared_wavefronts_ideal);
    EXPECT_EQ(x.local_sectors, y.local_sectors);
  }
}

// `n` lines of one kernel with distinct, known counters: line i executes 1000 + i warp instructions, and
// every third line is a strided load whose excess sectors grow with i (3 sectors a request above an ideal
// of 1, times i); the rest are coalesced; every fourth, from the second, is a helper's line inlined at the
// kernel's line 60 + i. Per launch, as the collector gives them.
inline SourceLines numbered_source_lines(std::size_t n, const std::string& file = "kernels/memory_access.cu") {
  SourceLines s;
  s.status = Status::ok;
  s.launches = 3;
  for (std::size_t i = 0; i < n; ++i) {
    SourceLine l;
    l.file = file;
    l.line = static_cast<std::int64_t>(10 + i);
    l.function = "copy_strided(const float *, float *, unsigned int)";
    l.sass_offset = static_cast<std::int64_t>(16 * i);
    l.text = "x" + std::to_string(i) + " = in[i * stride];  // <&> 'quoted' \"text\"";
    l.inst_executed = 1000.0 + static_cast<double>(i);
    l.thread_inst_executed = 32 * l.inst_executed;
    if (i % 3 == 0) {
      l.global_ld_requests = 100;
      l.global_ld_sectors_ideal = 100;
      l.global_ld_sectors = 100 + 3.0 * static_cast<double>(i);
    }
    l.shared_wavefronts = l.shared_wavefronts_ideal = 0.5 * static_cast<double>(i);
    l.local_sectors = i == 7 ? 12.25 : 0;
    if (i % 4 == 1) {  // a helper's line inlined into the kernel, called from the kernel's line 60 + i
      l.file = "kernels/helpers.cuh";
      l.inlined_at_file = file;
      l.inlined_at_line = static_cast<std::int64_t>(60 + i);
    }
    s.lines.push_back(l);
  }
  s.lines_total = static_cast<std::int64_t>(n);
  return s;
}

inline void expect_same_run(const Run& a, const Run& b) {
  EXPECT_EQ(a.uuid, b.uuid);
  EXPECT_EQ(a.started_at, b.started_at);
  EXPECT_EQ(a.finished_at, b.finished_at);
  EXPECT_EQ(a.commit, b.commit);
  EXPECT_EQ(a.branch, b.branch);
  EXPECT_EQ(a.label, b.label);
  EXPECT_EQ(a.tool_version, b.tool_version);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.excluded, b.excluded);
  EXPECT_EQ(a.exclude_reason, b.exclude_reason);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.exit_status, b.exit_status);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.local_rank, b.local_rank);
  EXPECT_EQ(a.world_size, b.world_size);
  EXPECT_EQ(a.machine.hostname, b.machine.hostname);
  EXPECT_EQ(a.machine.gpu_name, b.machine.gpu_name);
  EXPECT_EQ(a.machine.gpu_uuid, b.machine.gpu_uuid);
  EXPECT_EQ(a.machine.cc, b.machine.cc);
  EXPECT_EQ(a.machine.sm_count, b.machine.sm_count);
  EXPECT_EQ(a.machine.driver, b.machine.driver);
  EXPECT_EQ(a.machine.cuda, b.machine.cuda);
  EXPECT_EQ(a.environment, b.environment);
  ASSERT_EQ(a.results.size(), b.results.size());
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    const Result& x = a.results[i];
    const Result& y = b.results[i];
    SCOPED_TRACE(x.instance.display_name());
    EXPECT_EQ(x.instance.name, y.instance.name);
    EXPECT_EQ(x.instance.params, y.instance.params);
    EXPECT_EQ(x.baseline, y.baseline);
    EXPECT_EQ(x.status, y.status);
    EXPECT_EQ(x.message, y.message);
    ASSERT_EQ(x.metrics.size(), y.metrics.size());
    for (std::size_t j = 0; j < x.metrics.size(); ++j) {
      const Measurement& m = x.metrics[j];
      const Measurement& n = y.metrics[j];
      SCOPED_TRACE(m.metric.name);
      EXPECT_EQ(m.metric.name, n.metric.name);
      EXPECT_EQ(m.metric.unit, n.metric.unit);
      EXPECT_EQ(m.metric.higher_is_better, n.metric.higher_is_better);
      EXPECT_EQ(m.metric.deterministic, n.metric.deterministic);
      EXPECT_EQ(m.status, n.status);
      EXPECT_EQ(m.message, n.message);
      EXPECT_EQ(m.samples, n.samples);
      EXPECT_EQ(m.sm_clock_mhz, n.sm_clock_mhz);
      EXPECT_EQ(m.summary.n, n.summary.n);
      EXPECT_DOUBLE_EQ(m.summary.median, n.summary.median);
      EXPECT_DOUBLE_EQ(m.summary.mean, n.summary.mean);
      EXPECT_DOUBLE_EQ(m.summary.min, n.summary.min);
      EXPECT_DOUBLE_EQ(m.summary.max, n.summary.max);
      EXPECT_DOUBLE_EQ(m.summary.q1, n.summary.q1);
      EXPECT_DOUBLE_EQ(m.summary.q3, n.summary.q3);
      EXPECT_DOUBLE_EQ(m.summary.stdev, n.summary.stdev);
    }
    expect_same_source(x.source, y.source);
    EXPECT_EQ(x.code.fingerprint, y.code.fingerprint);
    EXPECT_EQ(x.code.launch, y.code.launch);
  }
}

}  // namespace gpuperf::testing
