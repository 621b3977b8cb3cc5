#include "profiler/sample_loop.hpp"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/errors.hpp"
#include "profiler/cubin/code_fingerprint.hpp"
#include "profiler/phase_log.hpp"

namespace gpuperf {
namespace {

// For the phase log: the GPU time of a batch's kernels, split into the benchmark's own (tagged), the L2
// flushes and the clock probes (the CUDA timing device's kernels, known by name), and any other.
void add_gpu_time(const cupti::ActivityBatch& records, const std::vector<std::uint64_t>& ids) {
  if (!phase_log_enabled()) return;
  std::map<std::uint32_t, bool> tagged;  // correlation id -> carries one of `ids`
  for (const auto& c : records.correlations) {
    if (std::binary_search(ids.begin(), ids.end(), c.external_id)) tagged[c.correlation_id] = true;
  }
  double kernel = 0, flush = 0, probe = 0, other = 0;
  for (const auto& k : records.kernels) {
    const double s = 1e-9 * static_cast<double>(k.end_ns - k.start_ns);
    if (tagged.count(k.correlation_id)) {
      kernel += s;
    } else if (k.name.find("l2_flush") != std::string::npos) {
      flush += s;
    } else if (k.name.find("clock_probe") != std::string::npos) {
      probe += s;
    } else {
      other += s;
    }
  }
  PhaseTotals& t = phase_totals();
  t.add("sampling: GPU time of the benchmark's kernels", kernel);
  t.add("sampling: GPU time of L2 flushes", flush);
  t.add("sampling: GPU time of clock probes", probe);
  if (other > 0) t.add("sampling: GPU time of other kernels", other);
}

// A sample's kernels and their launch shapes, kept in the result for its code identity (runner.cpp).
void note_kernels(const std::vector<cupti::KernelRecord>& kernels, TimingResult& result) {
  for (const cupti::KernelRecord& k : kernels) {
    result.kernels.push_back(k.name);
    result.launches.push_back(cubin::format_launch(k.grid, k.block, k.dynamic_smem));
  }
}

}  // namespace

std::size_t next_warmup_chunk(std::size_t chunk, std::size_t warm, double elapsed_s, const TimingOptions& options) {
  const std::size_t doubled = std::min<std::size_t>(2 * chunk, 1024);
  std::size_t want = warm < options.warmup_launches ? options.warmup_launches - warm : 1;
  if (elapsed_s < options.warmup_min_s && warm > 0 && elapsed_s > 0) {
    const double per_launch_s = elapsed_s / static_cast<double>(warm);
    want = std::max(want, static_cast<std::size_t>(std::ceil((options.warmup_min_s - elapsed_s) / per_launch_s)));
  }
  return std::clamp<std::size_t>(want, 1, doubled);
}

std::size_t next_batch_size(std::size_t taken, const TimingOptions& options, std::size_t clock_slots) {
  const StoppingCriteria& c = options.stop;
  if (taken >= c.max_samples) return 0;
  std::size_t want;
  if (options.mode == TimingMode::hot) {
    want = std::max<std::size_t>(1, options.hot_batch);
    if (taken < c.min_samples) want = std::max(want, c.min_samples - taken);
  } else if (taken < c.min_samples) {
    want = c.min_samples - taken;
  } else {
    want = std::clamp<std::size_t>(taken / 4, 8, 64);
  }
  want = std::min(want, c.max_samples - taken);
  // Cold mode reads the clock once per sample; hot mode once per batch.
  if (options.mode == TimingMode::cold && clock_slots > 0) want = std::min(want, clock_slots);
  return want;
}

void SampleLoop::tagged_launch(Workload& workload, StreamHandle stream, const std::string& range_name,
                               std::uint64_t id) {
  activity_.push_external_id(id);
  nvtxRangePushA(range_name.c_str());
  try {
    workload.launch(stream);
  } catch (...) {
    nvtxRangePop();
    activity_.pop_external_id();
    throw;
  }
  nvtxRangePop();
  activity_.pop_external_id();
}

TimingResult SampleLoop::time(Workload& workload, StreamHandle stream, const std::string& range_name,
                              const TimingOptions& options) {
  validate(options.stop);
  const bool cold = options.mode == TimingMode::cold;
  TimingResult result;
  result.reference_clock_mhz = device_.reference_clock_mhz();

  PhaseTimer phase;
  activity_.enable();
  phase_totals().add("CUPTI activity enable and disable", phase.split());
  struct Disable {  // leave CUPTI's kernel tracing off whatever happens (the collector runs next)
    cupti::ActivitySource& a;
    ~Disable() {
      PhaseTimer t;
      try {
        a.disable();
      } catch (...) {
      }
      phase_totals().add("CUPTI activity enable and disable", t.split());
    }
  } disable_on_exit{activity_};

  // Warm-up: untagged launches (their records are dropped) in chunks until both the minimum count and
  // the minimum time are reached. After the first chunk each is sized from the time a launch has taken so
  // far to end near the minimum time (at most twice the last chunk): doubling alone overshot it by half
  // on average.
  constexpr std::size_t kMaxWarmup = 100000;
  const auto w0 = std::chrono::steady_clock::now();
  std::size_t warm = 0;
  std::size_t chunk = std::max<std::size_t>(1, options.warmup_launches);
  for (;;) {
    for (std::size_t i = 0; i < chunk; ++i) {
      if (cold) device_.flush_l2(stream);
      nvtxRangePushA(range_name.c_str());
      workload.launch(stream);
      nvtxRangePop();
    }
    warm += chunk;
    device_.synchronize(stream);
    (void)activity_.collect();  // drop the warm-up's records
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    if ((warm >= options.warmup_launches && elapsed >= options.warmup_min_s) || warm >= kMaxWarmup) break;
    chunk = next_warmup_chunk(chunk, warm, elapsed, options);
  }
  result.warmup_launches = warm;
  phase_totals().add("warm-up", phase.split());

  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const std::size_t batch = next_batch_size(result.duration_ns.size(), options, device_.clock_slots());
    if (batch == 0) {
      result.stop_reason = StopReason::max_samples;
      break;
    }
    std::vector<std::uint64_t> ids(batch);
    for (std::size_t i = 0; i < batch; ++i) {
      ids[i] = next_id_++;
      if (cold) device_.flush_l2(stream);
      tagged_launch(workload, stream, range_name, ids[i]);
      if (cold && device_.clock_slots() > 0) device_.record_clock(stream, i);
    }
    if (!cold && device_.clock_slots() > 0) device_.record_clock(stream, 0);
    device_.synchronize(stream);

    // Collect until every launch of the batch has its record (a forced flush can catch a record before
    // its timestamps are written; that is rare and brief).
    cupti::ActivityBatch records;
    std::map<std::uint64_t, double> durations;
    for (int attempt = 0;; ++attempt) {
      cupti::ActivityBatch more = activity_.collect();
      records.kernels.insert(records.kernels.end(), more.kernels.begin(), more.kernels.end());
      records.correlations.insert(records.correlations.end(), more.correlations.begin(), more.correlations.end());
      records.dropped += more.dropped;
      durations = cupti::durations_by_external_id(records, ids);
      if (durations.size() == batch) break;
      if (records.dropped > 0) {
        throw EnvironmentError("CUPTI dropped " + std::to_string(records.dropped) + " activity records while timing '" +
                               range_name + "'");
      }
      if (attempt >= 50) {
        throw EnvironmentError("CUPTI delivered kernel records for " + std::to_string(durations.size()) + " of " +
                               std::to_string(batch) + " launches of '" + range_name + "' (" +
                               std::to_string(records.kernels.size()) + " kernel records, " +
                               std::to_string(records.correlations.size()) + " correlation records)");
      }
      phase_totals().add("sampling: record collection retries (count)", 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    add_gpu_time(records, ids);
    if (result.kernels.empty()) note_kernels(cupti::kernels_of_first_tag(records, ids), result);
    phase_totals().add("sampling: batches (count)", 1);
    phase_totals().add("sampling: samples (count)", static_cast<double>(batch));

    std::vector<double> clocks;
    if (device_.clock_slots() > 0) clocks = device_.read_clocks_mhz(cold ? batch : 1);
    for (std::size_t i = 0; i < batch; ++i) {
      result.duration_ns.push_back(durations.at(ids[i]));
      if (!clocks.empty()) result.sm_clock_mhz.push_back(cold ? clocks[i] : clocks[0]);
    }

    result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.stop_reason = should_stop(result.duration_ns, result.elapsed_s, options.stop);
    if (result.stop_reason != StopReason::not_yet) break;
  }
  phase_totals().add("sampling (wall)", phase.split());
  phase_totals().add(std::string("instances stopped: ") + to_string(result.stop_reason) + " (count)", 1);

  // Without a reference clock, the highest reading of this instance stands in.
  double reference = result.reference_clock_mhz;
  if (!(reference > 0) && !result.sm_clock_mhz.empty()) {
    reference = *std::max_element(result.sm_clock_mhz.begin(), result.sm_clock_mhz.end());
  }
  result.reference_clock_mhz = reference;
  if (!result.sm_clock_mhz.empty()) {
    result.throttled = flag_throttled(result.sm_clock_mhz, reference, options.throttle_fraction);
  }
  return result;
}

}  // namespace gpuperf
