#include "kernels/host_data.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <thread>

namespace gpuperf {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body, std::size_t grain) {
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min<std::size_t>(hw, std::max<std::size_t>(1, n / std::max<std::size_t>(1, grain)));
  if (workers <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> threads;
  threads.reserve(workers);
  const std::size_t chunk = (n + workers - 1) / workers;
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t begin = w * chunk;
    const std::size_t end = std::min(n, begin + chunk);
    if (begin >= end) break;
    threads.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (auto& t : threads) t.join();
}

namespace {
std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void reuse_freed_host_memory() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    constexpr int kBytes = 1 << 30;
    (void)mallopt(M_MMAP_THRESHOLD, kBytes);  // a refusal leaves glibc's defaults: slower, not wrong
    (void)mallopt(M_TRIM_THRESHOLD, kBytes);
  });
#endif
}

HostWork& host_work() {
  thread_local HostWork work;
  return work;
}

HostWorkTimer::HostWorkTimer(double HostWork::*field) : field_(field), start_ns_(steady_ns()) {}

HostWorkTimer::~HostWorkTimer() { host_work().*field_ += 1e-9 * static_cast<double>(steady_ns() - start_ns_); }

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, std::uint64_t stream, float lo, float hi) {
  HostWorkTimer timer(&HostWork::random_input_s);
  std::vector<float> out(n);
  const std::uint64_t base = splitmix64(seed ^ splitmix64(stream + 0x51ED270B27A5ull));
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  parallel_for(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t bits = splitmix64(base + i);
      const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1)
      out[i] = static_cast<float>(static_cast<double>(lo) + u * span);
      if (out[i] >= hi) out[i] = lo;  // rounding to float can reach hi
    }
  });
  return out;
}

std::vector<std::uint32_t> random_permutation(std::size_t n, std::uint64_t seed, std::uint64_t stream) {
  HostWorkTimer timer(&HostWork::random_input_s);
  std::vector<std::uint32_t> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::uint32_t>(i);
  std::uint64_t state = splitmix64(seed ^ splitmix64(stream + 0x9E37ull));
  for (std::size_t i = n; i > 1; --i) {
    state = splitmix64(state);
    // Lemire's multiply-shift maps 32 random bits onto [0, i) with negligible bias for i < 2^32.
    const std::size_t j = static_cast<std::size_t>(((state >> 32) * static_cast<std::uint64_t>(i)) >> 32);
    std::swap(p[i - 1], p[j]);
  }
  return p;
}

IndexNamer index_1d() {
  return [](std::size_t i) { return "[" + std::to_string(i) + "]"; };
}

IndexNamer index_2d(std::size_t cols) {
  return [cols](std::size_t i) { return "[" + std::to_string(i / cols) + "," + std::to_string(i % cols) + "]"; };
}

namespace {
std::string fmt(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

Verification summarize_failures(std::size_t wrong, std::size_t total, std::size_t first, const std::string& what,
                                const IndexNamer& namer, double got, const std::string& expected_text, double max_rel) {
  Verification v;
  v.max_rel_error = max_rel;
  if (wrong == 0) {
    v.ok = true;
    return v;
  }
  v.ok = false;
  v.message = what + namer(first) + " = " + fmt(got) + ", expected " + expected_text + "; " + std::to_string(wrong) +
              " of " + std::to_string(total) + " elements wrong";
  return v;
}
}  // namespace

Verification verify_close(const std::vector<float>& got, const std::vector<double>& expected,
                          const std::vector<double>& scale, Tolerance tol, const std::string& what,
                          const IndexNamer& namer) {
  if (got.size() != expected.size() || (!scale.empty() && scale.size() != expected.size())) {
    Verification v;
    v.message = what + ": " + std::to_string(got.size()) + " elements computed, " + std::to_string(expected.size()) +
                " expected";
    return v;
  }
  // Every element is checked, in parallel: each part counts its wrong elements and keeps its first; the
  // parts are merged in index order, so the message names the first wrong element as a serial scan would.
  std::mutex mutex;
  std::size_t wrong = 0, first = got.size();
  double first_allowed = 0, max_rel = 0;
  parallel_for(got.size(), [&](std::size_t begin, std::size_t end) {
    std::size_t part_wrong = 0, part_first = 0;
    double part_allowed = 0, part_max = 0;
    for (std::size_t i = begin; i < end; ++i) {
      const double g = got[i];
      const double e = expected[i];
      const double s = scale.empty() ? std::fabs(e) : scale[i];
      const double err = std::fabs(g - e);
      const double allowed = tol.abs + tol.rel * s;
      const bool ok = std::isfinite(g) && err <= allowed;
      if (std::isfinite(g)) part_max = std::max(part_max, err / std::max(s, 1e-30));
      if (!ok) {
        if (part_wrong == 0) {
          part_first = i;
          part_allowed = allowed;
        }
        ++part_wrong;
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    max_rel = std::max(max_rel, part_max);
    wrong += part_wrong;
    if (part_wrong > 0 && part_first < first) {
      first = part_first;
      first_allowed = part_allowed;
    }
  });
  if (wrong == 0) return summarize_failures(0, got.size(), 0, what, namer, 0, "", max_rel);
  return summarize_failures(wrong, got.size(), first, what, namer, got[first],
                            fmt(expected[first]) + " (tolerance " + fmt(first_allowed) + ")",
                            std::isfinite(static_cast<double>(got[first])) ? max_rel : INFINITY);
}

Verification verify_equal(const std::vector<float>& got, const std::vector<float>& expected, const std::string& what,
                          const IndexNamer& namer) {
  if (got.size() != expected.size()) {
    Verification v;
    v.message = what + ": " + std::to_string(got.size()) + " elements computed, " + std::to_string(expected.size()) +
                " expected";
    return v;
  }
  std::mutex mutex;
  std::size_t wrong = 0, first = got.size();
  parallel_for(got.size(), [&](std::size_t begin, std::size_t end) {
    std::size_t part_wrong = 0, part_first = 0;
    for (std::size_t i = begin; i < end; ++i) {
      // Bitwise: a NaN poison left in place never equals a real value.
      if (std::memcmp(&got[i], &expected[i], sizeof(float)) != 0) {
        if (part_wrong == 0) part_first = i;
        ++part_wrong;
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    wrong += part_wrong;
    if (part_wrong > 0) first = std::min(first, part_first);
  });
  if (wrong == 0) return summarize_failures(0, got.size(), 0, what, namer, 0, "", 0);
  return summarize_failures(wrong, got.size(), first, what, namer, got[first], fmt(expected[first]) + " (exact)",
                            INFINITY);
}

}  // namespace gpuperf

#include "core/errors.hpp"

namespace gpuperf {

std::int64_t int_param(const Params& params, const std::string& name, const std::string& benchmark) {
  auto it = params.find(name);
  if (it == params.end()) throw InputError(benchmark + ": parameter '" + name + "' is missing");
  if (const auto* v = std::get_if<std::int64_t>(&it->second)) return *v;
  throw InputError(benchmark + ": parameter '" + name + "' must be an integer, got '" + to_string(it->second) + "'");
}

}  // namespace gpuperf
