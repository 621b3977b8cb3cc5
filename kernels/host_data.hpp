// Host-side helpers of the built-in workloads: fresh random input from a seed, parallel CPU references,
// and verification with a message naming the first wrong element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/benchmark.hpp"

namespace gpuperf {

// Uniform floats in [lo, hi) from a counter-based generator (SplitMix64 of seed, stream and index): the
// buffer fills in parallel, and the same (seed, stream) gives the same values. Use a distinct `stream` per
// input of a workload so its inputs are independent.
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, std::uint64_t stream, float lo = -1.0f,
                                 float hi = 1.0f);
// A uniformly random permutation of 0..n-1 (Fisher-Yates driven by the seed).
std::vector<std::uint32_t> random_permutation(std::size_t n, std::uint64_t seed, std::uint64_t stream);
// The 64-bit mix of SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators", 2014).
std::uint64_t splitmix64(std::uint64_t x);

// Runs body(begin, end) over [0, n) split across the machine's cores (CPU references of large problems),
// each worker given at least `grain` items: the default suits cheap items (an element); items that are
// rows of a matrix want a grain of 1 (a 1024 x 1024 matmul reference ran on one core with the default).
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body, std::size_t grain = 4096);

// Keeps freed host memory in the process for the next allocation (glibc: no mmap for blocks under 1 GiB,
// no trimming under 1 GiB free), once per process; a no-op elsewhere. Every instance's workload allocates
// and fills its inputs and references afresh (hundreds of MB for the suite's large instances); mapped anew,
// each page costs a fault on first touch, which on an H100 machine made up most of the time spent drawing
// random input and computing references. The runner calls it before the first workload is made.
void reuse_freed_host_memory();

// Wall seconds the calling thread has spent drawing random input and computing CPU references, for the
// runner's phase log (GPUPERF_PHASE_TIMES): it reads them around each factory. random_floats and
// random_permutation count themselves; a workload's reference code runs inside a HostWorkTimer.
struct HostWork {
  double random_input_s = 0;
  double reference_s = 0;
};
HostWork& host_work();  // this thread's
// Adds the wall seconds of its scope to one field of host_work(), e.g. HostWorkTimer t(&HostWork::reference_s).
class HostWorkTimer {
 public:
  explicit HostWorkTimer(double HostWork::*field);
  ~HostWorkTimer();
  HostWorkTimer(const HostWorkTimer&) = delete;
  HostWorkTimer& operator=(const HostWorkTimer&) = delete;

 private:
  double HostWork::*field_;
  std::int64_t start_ns_;
};

struct Tolerance {
  double rel = 0;  // relative to the element's scale
  double abs = 0;
};

// Frees a vector's memory (clear() keeps its capacity), e.g. a reference in Workload::verified().
template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

// Names element i in a message ("[17]", "[3,17]").
using IndexNamer = std::function<std::string(std::size_t)>;
IndexNamer index_1d();
IndexNamer index_2d(std::size_t cols);  // row-major: i = row * cols + col -> "[row,col]"

// got[i] passes when |got[i] - expected[i]| <= tol.abs + tol.rel * scale[i], scale[i] = |expected[i]| when
// `scale` is empty (for a dot product pass sum |a_k b_k|: the rounding error grows with it, not with the
// possibly cancelling result). NaN and infinity never pass. `what` names the output ("c").
Verification verify_close(const std::vector<float>& got, const std::vector<double>& expected,
                          const std::vector<double>& scale, Tolerance tol, const std::string& what,
                          const IndexNamer& namer = index_1d());
// Bit-exact comparison for copies and permutations.
Verification verify_equal(const std::vector<float>& got, const std::vector<float>& expected, const std::string& what,
                          const IndexNamer& namer = index_1d());

}  // namespace gpuperf

namespace gpuperf {

// The integer value of axis `name` at an instance's parameter point; InputError naming the benchmark when
// it is missing or not an integer.
std::int64_t int_param(const Params& params, const std::string& name, const std::string& benchmark);

// Blocks of `block` threads needed to cover `n` items.
inline unsigned blocks_for(std::int64_t n, std::int64_t block) {
  return static_cast<unsigned>((n + block - 1) / block);
}

}  // namespace gpuperf
