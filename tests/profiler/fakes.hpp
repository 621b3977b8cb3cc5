// A fake GPU for the timing loop: it plays both the CUPTI activity source and the timing device, and
// produces kernel records with scripted durations, tagged the way CUPTI tags them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "profiler/cupti/activity_records.hpp"
#include "profiler/sample_loop.hpp"

namespace gpuperf::testing {

class FakeGpu : public cupti::ActivitySource, public TimingDevice {
 public:
  // ---- what tests look at ----
  int flushes = 0, syncs = 0, clock_records = 0;
  bool enabled = false;
  std::vector<double> clock_script{1980.0};  // readings handed out in turn
  bool drop_bench_records = false;           // simulate CUPTI losing the benchmark's records

  // A kernel ran on the GPU for `ns`; tagged with the innermost pushed external id, if any.
  void kernel(const std::string& name, double ns) {
    const std::uint32_t corr = next_corr_++;
    if (!enabled) return;
    if (!stack_.empty()) pending_.correlations.push_back({stack_.back(), corr});
    if (drop_bench_records && name == "bench") return;
    pending_.kernels.push_back({corr, now_, now_ + static_cast<std::uint64_t>(ns), 1, name});
    now_ += static_cast<std::uint64_t>(ns) + 1000;
  }

  // ---- ActivitySource ----
  void enable() override { enabled = true; }
  void disable() override { enabled = false; }
  void push_external_id(std::uint64_t id) override { stack_.push_back(id); }
  void pop_external_id() override { stack_.pop_back(); }
  cupti::ActivityBatch collect() override {
    cupti::ActivityBatch out = std::move(pending_);
    pending_ = {};
    return out;
  }

  // ---- TimingDevice ----
  void flush_l2(StreamHandle) override {
    ++flushes;
    kernel("flush", 30000);
  }
  void record_clock(StreamHandle, std::size_t slot) override {
    ++clock_records;
    slots_.at(slot) = clock_script[next_clock_++ % clock_script.size()];
    kernel("clock", 20000);
  }
  std::size_t clock_slots() const override { return slots_.size(); }
  void synchronize(StreamHandle) override { ++syncs; }
  std::vector<double> read_clocks_mhz(std::size_t count) override {
    return std::vector<double>(slots_.begin(), slots_.begin() + static_cast<long>(count));
  }
  double reference_clock_mhz() const override { return 1980.0; }

 private:
  std::vector<std::uint64_t> stack_;
  std::uint32_t next_corr_ = 1;
  std::uint64_t now_ = 1000000;
  cupti::ActivityBatch pending_;
  std::vector<double> slots_ = std::vector<double>(64, 0.0);
  std::size_t next_clock_ = 0;
};

// A workload whose n-th launch runs for duration(n) ns on the fake GPU; verify() answers `correct`.
class FakeWorkload : public Workload {
 public:
  FakeWorkload(FakeGpu* gpu, std::function<double(std::size_t)> duration, bool correct = true)
      : gpu_(gpu), duration_(std::move(duration)), correct_(correct) {}
  std::size_t launches = 0, poisons = 0;

  void launch(StreamHandle) override {
    const double ns = duration_(launches++);
    if (gpu_ != nullptr) gpu_->kernel("bench", ns);
  }
  void poison_outputs(StreamHandle) override { ++poisons; }
  Verification verify(StreamHandle) override {
    Verification v;
    v.ok = correct_ && launches > 0;
    if (!v.ok) v.message = "out[3] = nan, expected 1.5";
    return v;
  }
  const void* kernel_function() const override { return this; }
  LaunchShape launch_shape() const override { return {}; }

 private:
  FakeGpu* gpu_;
  std::function<double(std::size_t)> duration_;
  bool correct_;
};

}  // namespace gpuperf::testing
