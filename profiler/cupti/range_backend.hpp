// The seam between the collector's logic and CUPTI: the only code that calls the Range Profiler and the
// profiler Host API implements RangeProfilerBackend (range_backend_cupti.cpp, built as the module
// libgpuperf_cupti.so and loaded at run time by range_backend_loader.cpp). Tests implement it with a fake.
//
// This header includes no CUDA or CUPTI header. The CUPTI call order the interface follows (CUPTI 13.0,
// cupti_profiler_host.h / cupti_range_profiler.h):
//   open:    cuptiProfilerInitialize, cuptiDeviceGetChipName, cuptiProfilerGetCounterAvailability,
//            cuptiProfilerHostInitialize(chip, availability)
//   configure: cuptiProfilerHostConfigAddMetrics, ...GetConfigImage, ...GetNumOfPasses
//   session: cuptiRangeProfilerEnable, ...GetCounterDataSize, ...CounterDataImageInitialize, ...SetConfig;
//            per pass Start, (PushRange, launches, PopRange)*, Stop until all passes are submitted;
//            DecodeData; per range CounterDataGetRangeInfo and cuptiProfilerHostEvaluateToGpuValues;
//            cuptiRangeProfilerDisable.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuperf::cupti {

// What a failed CUPTI call means for the caller (classify_cupti_result maps CUptiResult codes).
enum class FailureKind {
  insufficient_privileges,  // CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35), ..._VIRTUALIZED_DEVICE_... (40)
  profiler_busy,            // another profiler holds the counters (ncu, nsys, a second session)
  unsupported_device,       // architecture, MIG, vGPU, SLI, WSL, CMP, confidential computing
  invalid_metric,           // CUPTI_ERROR_INVALID_METRIC_NAME (17)
  no_device,                // no driver or no GPU under the context
  other,
};
const char* to_string(FailureKind k);
FailureKind classify_cupti_result(int cupti_result);

// A failed CUPTI call: which call, where, CUPTI's code and name (cuptiGetResultString).
class BackendError : public std::runtime_error {
 public:
  BackendError(FailureKind kind, std::string call, int code, const std::string& message)
      : std::runtime_error(message), kind_(kind), call_(std::move(call)), code_(code) {}
  FailureKind kind() const { return kind_; }
  const std::string& call() const { return call_; }
  int code() const { return code_; }

 private:
  FailureKind kind_;
  std::string call_;
  int code_;
};

// cuptiProfilerDeviceSupported's answer, per feature.
enum class SupportLevel { unknown, unsupported, disabled, supported };
struct DeviceSupport {
  SupportLevel overall = SupportLevel::unknown;
  SupportLevel architecture = SupportLevel::unknown;  // compute capability 7.0 or newer
  SupportLevel sli = SupportLevel::unknown;
  SupportLevel vgpu = SupportLevel::unknown;
  SupportLevel confidential_compute = SupportLevel::unknown;
  SupportLevel cmp = SupportLevel::unknown;  // crypto-mining processors
  SupportLevel wsl = SupportLevel::unknown;
};
// The CUPTI API a device is checked for: the Range Profiler (hardware metrics) or SASS metrics (source lines).
enum class ProfilerApi { range_profiler, sass_metrics };
// Empty when the device can be profiled with `api`; otherwise why not, in words a user can act on.
std::string describe_unsupported(const DeviceSupport& s, const std::string& device_name,
                                 ProfilerApi api = ProfilerApi::range_profiler);

enum class MetricKind { counter, ratio, throughput };

struct MetricProperties {
  std::string description;
  std::string hw_unit;   // "sm", "dram", "l1tex", ...
  std::string dim_unit;  // "percent", "byte", "warp", ...
  MetricKind kind = MetricKind::counter;
};

enum class SessionReplay {
  user,    // user range + user replay: the caller repeats its launches once per pass
  kernel,  // auto range + kernel replay: CUPTI replays each kernel, saving and restoring memory
  // auto range + user replay: every kernel launched in a pass is a range of its own (named "0", "1", ... in
  // launch order) and the caller repeats the same launches once per pass; nothing is saved or restored.
  auto_range_user,
};

// One evaluated range: its name (user ranges: the pushed name; auto ranges: "0", "1", ... in launch
// order) and one value per configured metric, in the metric's own unit (".pct" is 0-100).
struct RangeValues {
  std::string name;
  std::vector<double> values;
};

class RangeProfilerBackend {
 public:
  virtual ~RangeProfilerBackend() = default;

  // ---- Host side: works from the chip name alone, no GPU needed. ----
  virtual std::string chip_name() const = 0;
  // Base metric names of one kind ("dram__bytes_read", "smsp__sass_average_data_bytes_per_sector_...").
  virtual std::vector<std::string> base_metrics(MetricKind kind) = 0;
  // Suffixes a base metric accepts (".sum", ".avg.pct_of_peak_sustained_active", ".pct", ...).
  virtual std::vector<std::string> sub_metrics(MetricKind kind, const std::string& base) = 0;
  // nullopt when `full_name` is not a metric of this chip.
  virtual std::optional<MetricProperties> metric_properties(const std::string& full_name) = 0;
  // Builds a configuration image for `metrics` (full names) and returns the passes it needs; the
  // configurations are numbered 0, 1, ... in the order they are added. Throws BackendError
  // (invalid_metric) for a name CUPTI rejects.
  virtual std::size_t add_configuration(const std::vector<std::string>& metrics) = 0;

  // ---- Device side: needs the back end opened on a device. ----
  // Enables the range profiler on the device's context, sizes a counter-data image for `max_ranges`
  // ranges and sets configuration `configuration`.
  virtual void begin_session(std::size_t configuration, SessionReplay replay, std::size_t max_ranges) = 0;
  virtual void start_pass() = 0;
  virtual void push_range(const std::string& name) = 0;  // SessionReplay::user only
  virtual void pop_range() = 0;
  // Ends the pass; true once every pass the configuration needs has been submitted.
  virtual bool end_pass() = 0;
  // Decodes the collected passes; returns the number of ranges dropped (counter-data image too small).
  virtual std::size_t decode() = 0;
  // One value per metric of the session's configuration, in its order.
  virtual std::vector<RangeValues> evaluate() = 0;
  // Disables the range profiler (kernels run unpatched again). Safe to call when no session is open.
  virtual void end_session() = 0;
  // Begins a session like begin_session on a range profiler left enabled by the last one (whose passes were
  // decoded and evaluated, and which end_session did not close): a fresh counter-data image and SetConfig,
  // without the disable and enable (on an H100: 0.2 ms instead of 150 ms). False, having done nothing, when no
  // session is open (the caller then calls begin_session).
  virtual bool restart_session(std::size_t configuration, SessionReplay replay, std::size_t max_ranges) = 0;
};

// How the collector asks the module for a back end. The module exports
//   extern "C" const gpuperf::cupti::BackendFactory* gpuperf_cupti_backend_factory(int abi_version);
// which returns nullptr when `abi_version` differs from its own kBackendAbiVersion.
class BackendFactory {
 public:
  virtual ~BackendFactory() = default;
  // Host side only, for a chip by name ("GH100"): lists and checks metrics, counts passes. No GPU.
  virtual std::unique_ptr<RangeProfilerBackend> open_host(const std::string& chip) const = 0;
  // Host and device side for CUDA device `device`, whose current CUDA context is `cu_context` (CUcontext).
  // Throws BackendError (unsupported_device with describe_unsupported's reason, insufficient_privileges,
  // no_device, ...) when the device cannot be profiled.
  virtual std::unique_ptr<RangeProfilerBackend> open_device(int device, void* cu_context) const = 0;
  // Host side only: the passes PM sampling needs for `metrics` (full Perfworks names) on `chip`; 0 when the chip
  // refuses one of them. No GPU.
  virtual std::size_t pm_sampling_passes(const std::string& chip, const std::vector<std::string>& metrics) const = 0;
};

inline constexpr int kBackendAbiVersion = 3;  // 2: restart_session; 3: pm_sampling_passes
inline constexpr const char* kBackendFactorySymbol = "gpuperf_cupti_backend_factory";

}  // namespace gpuperf::cupti
