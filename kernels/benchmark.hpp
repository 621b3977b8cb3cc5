// The benchmark registration API: how the built-in suite and users' own kernels describe themselves.
//
// A Benchmark is a family/variant with parameter axes; each point of its axes is one instance. For an
// instance the runner asks the benchmark for a Workload (device buffers filled with fresh random input and a
// CPU reference), poisons the outputs, launches once and verifies, and only then times and profiles
// repeated launches. This header includes no CUDA header: host-only code (the CLI, the runner) uses it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*

namespace gpuperf {

using StreamHandle = CUstream_st*;

struct Verification {
  bool ok = false;
  std::string message;  // what was wrong and where ("c[17,3] = nan, expected 12.5")
  double max_rel_error = 0;
};

struct LaunchShape {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::size_t dynamic_shared_bytes = 0;
  unsigned threads_per_block() const { return block[0] * block[1] * block[2]; }
};

// A device allocation: its start and size in bytes.
struct DeviceRange {
  const void* ptr = nullptr;
  std::size_t bytes = 0;
};

// The device allocations made on this thread while it is open (DeviceBuffer reports each one): the runner
// opens one around a benchmark's factory, so a workload knows its own memory without declaring it. Logs
// nest; an allocation goes to the innermost.
class AllocationLog {
 public:
  AllocationLog() : outer_(current()) { current() = this; }
  ~AllocationLog() { current() = outer_; }
  AllocationLog(const AllocationLog&) = delete;
  AllocationLog& operator=(const AllocationLog&) = delete;

  static void note(const void* ptr, std::size_t bytes) {
    if (current() != nullptr && ptr != nullptr && bytes > 0) current()->ranges.push_back({ptr, bytes});
  }
  // An allocation freed while the log is open (a factory's temporary buffer) leaves it: nothing may read
  // freed memory later.
  static void forget(const void* ptr) {
    if (current() == nullptr || ptr == nullptr) return;
    auto& r = current()->ranges;
    for (auto it = r.begin(); it != r.end();) it = it->ptr == ptr ? r.erase(it) : it + 1;
  }
  std::vector<DeviceRange> ranges;

 private:
  static AllocationLog*& current() {
    thread_local AllocationLog* log = nullptr;
    return log;
  }
  AllocationLog* outer_;
};

// One benchmark instance's live state on the device. Built fresh per instance, freed after.
class Workload {
 public:
  virtual ~Workload() = default;
  // Enqueue exactly one launch of the kernel under test on `stream` (asynchronous; no synchronisation).
  // Repeated launches must give the same result unless the benchmark is declared not idempotent.
  virtual void launch(StreamHandle stream) = 0;
  // Fill every output with a poison pattern (NaN for floats) so an element the kernel never writes fails
  // verification.
  virtual void poison_outputs(StreamHandle stream) = 0;
  // Synchronise, copy the outputs back and compare them with the CPU reference.
  virtual Verification verify(StreamHandle stream) = 0;
  // Called by the runner once verify() has passed; it does not call verify() again. A workload may free
  // here what only verification needs (its CPU reference): with hardware metrics a verified workload stays
  // alive until its group is profiled, and the suite's references held that way are gigabytes of host
  // memory. The default keeps everything.
  virtual void verified() {}
  // The __global__ function under test and its launch shape: for cudaFuncGetAttributes and the occupancy API.
  virtual const void* kernel_function() const = 0;
  virtual LaunchShape launch_shape() const = 0;

  // The device memory allocated while the workload was built (through DeviceBuffer; memory allocated
  // otherwise is not listed), set by the runner. The profiler's L2 flush reads a word of every 64 KiB of it
  // before a profiled launch, so that launch starts with warm address translations (metric_device.hpp).
  std::vector<DeviceRange> device_memory;
};

struct Axis {
  std::string name;
  std::vector<ParamValue> values;
};

struct Benchmark {
  std::string name;         // "family/variant", e.g. "matmul/tiled"
  std::string description;  // one line: the idea this variant shows
  // The benchmark this one is compared against in the family panels ("matmul/naive" for "matmul/tiled");
  // empty for the family's baseline itself.
  std::string baseline;
  std::vector<Axis> axes;
  bool idempotent = true;        // false: the profiler must use kernel replay (saves/restores memory)
  bool in_default_suite = true;  // false: only run when a --filter names it
  // Builds the instance at `params` with inputs drawn from a generator seeded by `seed`.
  std::function<std::unique_ptr<Workload>(const Params& params, std::uint64_t seed)> make;
  std::function<double(const Params&)> bytes;  // minimal bytes moved per launch (each input read once,
                                               // each output written once), for GB/s
  std::function<double(const Params&)> flops;  // floating-point operations per launch, for GFLOP/s
  std::string source;                          // "file.cu:42" where GPUPERF_BENCHMARK registered it; empty for add()

  std::string family() const;   // "matmul"
  std::string variant() const;  // "tiled"
};

struct InstanceRef {
  const Benchmark* benchmark = nullptr;
  Params params;
  BenchmarkInstance instance() const { return BenchmarkInstance{benchmark->name, params}; }
};

class BenchmarkBuilder;

class Registry {
 public:
  // The process-wide registry the built-in suite and GPUPERF_BENCHMARK register into.
  static Registry& global();

  // Throws InputError on a duplicate name, a name without exactly one '/', or an axis without values.
  const Benchmark& add(Benchmark b);
  // Registers a benchmark with only a name and factory; the returned builder fills in the rest in place.
  BenchmarkBuilder& builder(std::string name,
                            std::function<std::unique_ptr<Workload>(const Params&, std::uint64_t)> make);
  // What GPUPERF_BENCHMARK calls at static initialisation, where an exception would abort the program before
  // main(): a registration that add() would refuse (a duplicate name, a bad name, no factory) is kept in
  // registration_errors() instead, naming `file:line` (and, for a duplicate, where the first one was
  // registered); the returned builder then edits a detached benchmark that is never listed.
  BenchmarkBuilder& builder_at(std::string name,
                               std::function<std::unique_ptr<Workload>(const Params&, std::uint64_t)> make,
                               const char* file, int line) noexcept;
  // Registrations refused by builder_at(), in order. The CLI refuses to start while any exist (exit 2).
  const std::vector<std::string>& registration_errors() const { return errors_; }
  std::vector<const Benchmark*> benchmarks() const;
  const Benchmark* find(const std::string& name) const;

  // Every instance (axis cross product, axes in declaration order) whose display name
  // ("matmul/tiled[n=1024,tile=16]") matches `filter`, an ECMAScript regex searched anywhere in the name.
  // An empty filter selects the default suite; a non-empty one may also select opt-in benchmarks.
  // Throws InputError for an invalid regex.
  std::vector<InstanceRef> instances(const std::string& filter = "") const;

 private:
  std::vector<std::unique_ptr<Benchmark>> benchmarks_;  // stable addresses for builders and InstanceRefs
  std::vector<std::unique_ptr<BenchmarkBuilder>> builders_;
  std::vector<std::unique_ptr<Benchmark>> rejected_;  // what builders of refused registrations edit
  std::vector<std::string> errors_;
};

// Registers the built-in suite (kernels/*.cu, target gpuperf_builtin_kernels) into `registry`. Calling it
// twice on one registry is a no-op. Linking gpuperf::builtin_kernels registers it into Registry::global()
// at start-up by itself.
void register_builtin_benchmarks(Registry& registry);

// Fluent registration for users' own kernels, in the spirit of NVBench's NVBENCH_BENCH:
//
//   GPUPERF_BENCHMARK("mylib/saxpy", make_saxpy)
//       .axis("n", {1 << 20, 1 << 24})
//       .bytes([](const gpuperf::Params& p) { return 12.0 * std::get<std::int64_t>(p.at("n")); })
//       .flops([](const gpuperf::Params& p) { return 2.0 * std::get<std::int64_t>(p.at("n")); });
//
// Each call edits the benchmark already held by the registry.
class BenchmarkBuilder {
 public:
  explicit BenchmarkBuilder(Benchmark& b) : b_(b) {}
  BenchmarkBuilder& description(std::string text);
  BenchmarkBuilder& baseline(std::string benchmark_name);
  BenchmarkBuilder& axis(std::string name, std::vector<std::int64_t> values);
  BenchmarkBuilder& string_axis(std::string name, std::vector<std::string> values);
  BenchmarkBuilder& bytes(std::function<double(const Params&)> f);
  BenchmarkBuilder& flops(std::function<double(const Params&)> f);
  BenchmarkBuilder& not_idempotent();
  BenchmarkBuilder& opt_in();  // not in the default suite
  const Benchmark& benchmark() const { return b_; }

 private:
  Benchmark& b_;
};

#define GPUPERF_DETAIL_CONCAT2(a, b) a##b
#define GPUPERF_DETAIL_CONCAT(a, b) GPUPERF_DETAIL_CONCAT2(a, b)
// Registers a benchmark at static-initialisation time. Put it in a source file of your executable, not of
// a static library (the linker drops a library's objects that nothing references).
// A refused registration (e.g. a name registered twice) does not abort: gpuperf::main reports it with
// both source locations and exits 2.
#define GPUPERF_BENCHMARK(name, factory)                                                                     \
  [[maybe_unused]] static ::gpuperf::BenchmarkBuilder& GPUPERF_DETAIL_CONCAT(gpuperf_benchmark_, __LINE__) = \
      ::gpuperf::Registry::global().builder_at(name, factory, __FILE__, __LINE__)

}  // namespace gpuperf
