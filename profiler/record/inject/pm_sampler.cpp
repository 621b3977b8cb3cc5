#include "profiler/record/inject/pm_sampler.hpp"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <chrono>
#include <cmath>
#include <new>
#include <utility>

#include "profiler/cupti/cupti_check.hpp"
#include "profiler/cupti/host_config.hpp"
#include "profiler/record/pm_sampling.hpp"

namespace gpuperf::record::inject {
namespace {

using cupti::host_free;

std::string cupti_error(CUptiResult r, const char* call) { return cupti::CuptiFailure{r, call}.text(); }

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

std::string PmSampler::setup(int device, std::uint64_t interval_ns, std::uint64_t buffer_bytes) {
  device_ = device;
  interval_ns_ = interval_ns;
  auto pi = cupti::params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  CUptiResult r = cuptiProfilerInitialize(&pi);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiProfilerInitialize");
  auto ds = cupti::params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  ds.cuDevice = device;
  ds.api = CUPTI_PROFILER_PM_SAMPLING;
  r = cuptiProfilerDeviceSupported(&ds);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiProfilerDeviceSupported");
  if (ds.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    return "PM sampling is not supported on device " + std::to_string(device) + " (architecture " +
           std::to_string(ds.architecture) + ", vGPU " + std::to_string(ds.vGpu) + ", confidential compute " +
           std::to_string(ds.confidentialCompute) + ")";
  auto cn = cupti::params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  cn.deviceIndex = static_cast<std::size_t>(device);
  r = cuptiDeviceGetChipName(&cn);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiDeviceGetChipName");
  const std::string chip = cn.pChipName;
  auto av = cupti::params<CUpti_PmSampling_GetCounterAvailability_Params>(
      CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  av.deviceIndex = static_cast<std::size_t>(device);
  r = cuptiPmSamplingGetCounterAvailability(&av);
  std::vector<std::uint8_t> avail(av.counterAvailabilityImageSize);
  av.pCounterAvailabilityImage = avail.data();
  if (r == CUPTI_SUCCESS) r = cuptiPmSamplingGetCounterAvailability(&av);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiPmSamplingGetCounterAvailability");

  // The set for this chip: names it accepts, in one pass (pm_sampling.hpp).
  const auto passes_of = [&](const std::vector<std::string>& names) {
    return cupti::pm_sampling_passes(chip, names, avail.data());
  };
  metrics_ = choose_pm_metrics([&](const std::string& m) { return passes_of({m}) > 0; }, passes_of);
  if (metrics_.empty()) return "no speed-of-light metric fits one PM-sampling pass on " + chip;
  names_.clear();
  for (const std::string& m : metrics_) names_.push_back(m.c_str());
  cupti::HostConfiguration config;
  if (cupti::CuptiFailure f =
          cupti::host_configure(CUPTI_PROFILER_TYPE_PM_SAMPLING, chip.c_str(), avail.data(), names_, config)) {
    return f.text() + " (the PM-sampling configuration)";
  }
  host_ = config.host;
  config_ = std::move(config.image);

  auto en = cupti::params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  en.deviceIndex = static_cast<std::size_t>(device);
  r = cuptiPmSamplingEnable(&en);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiPmSamplingEnable");
  pm_ = en.pPmSamplingObject;
  auto sc = cupti::params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  sc.pPmSamplingObject = pm_;
  sc.configSize = config_.size();
  sc.pConfig = config_.data();
  sc.hardwareBufferSize = buffer_bytes;
  sc.samplingInterval = interval_ns;
  sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;  // an overflow is reported
  r = cuptiPmSamplingSetConfig(&sc);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiPmSamplingSetConfig");
  return "";
}

std::string PmSampler::start() {
  CUptiResult r = cuptiGetTimestamp(&start_ns_);
  auto p = cupti::params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  p.pPmSamplingObject = pm_;
  if (r == CUPTI_SUCCESS) r = cuptiPmSamplingStart(&p);
  return r == CUPTI_SUCCESS ? "" : cupti_error(r, "cuptiPmSamplingStart");
}

std::string PmSampler::stop() {
  auto p = cupti::params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  p.pPmSamplingObject = pm_;
  CUptiResult r = cuptiPmSamplingStop(&p);
  if (r == CUPTI_SUCCESS) r = cuptiGetTimestamp(&stop_ns_);
  return r == CUPTI_SUCCESS ? "" : cupti_error(r, "cuptiPmSamplingStop");
}

std::size_t PmSampler::image_size(std::uint64_t samples, std::string* error) {
  auto cs =
      cupti::params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
  cs.pPmSamplingObject = pm_;
  cs.pMetricNames = names_.data();
  cs.numMetrics = names_.size();
  cs.maxSamples = static_cast<std::uint32_t>(samples);
  const CUptiResult r = cuptiPmSamplingGetCounterDataSize(&cs);
  if (r != CUPTI_SUCCESS) return *error = cupti_error(r, "cuptiPmSamplingGetCounterDataSize"), 0;
  return cs.counterDataSize;
}

std::string PmSampler::decode(std::uint64_t max_samples, const std::function<void(const PmSample&)>& emit,
                              PmWindowRecord& w) {
  const std::uint64_t t0 = now_ns();
  const double window = static_cast<double>(stop_ns_ - start_ns_);
  const double wanted = std::max(1024.0, 1.15 * window / static_cast<double>(interval_ns_) + 1024.0);
  const std::uint64_t samples =
      std::min<std::uint64_t>({max_samples, static_cast<std::uint64_t>(wanted), 0xffffffffull});  // CUPTI's uint32
  std::string error;
  const std::size_t bytes = image_size(samples, &error);
  if (bytes == 0) return error;
  std::vector<std::uint8_t> image;
  try {
    image.assign(bytes, 0);
  } catch (const std::bad_alloc&) {
    return "no memory for the counter-data image of " + std::to_string(samples) + " samples (" +
           std::to_string(bytes >> 20) + " MiB; --pm-sampling-max-samples bounds it)";
  }
  auto ci = cupti::params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
      CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  ci.pPmSamplingObject = pm_;
  ci.counterDataSize = image.size();
  ci.pCounterData = image.data();
  CUptiResult r = cuptiPmSamplingCounterDataImageInitialize(&ci);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiPmSamplingCounterDataImageInitialize");
  // The one decode: whatever stops it, it is not called again (a second call after FULL finds nothing).
  auto d = cupti::params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
  d.pPmSamplingObject = pm_;
  d.pCounterDataImage = image.data();
  d.counterDataImageSize = image.size();
  r = cuptiPmSamplingDecodeData(&d);
  w.decode_ns = now_ns() - t0;
  if (r == CUPTI_ERROR_OUT_OF_MEMORY) w.overflow = true;  // KEEP_OLDEST overflowed: the session is over
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiPmSamplingDecodeData");
  w.overflow = w.overflow || d.overflow != 0;
  w.image_full = d.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
  auto info =
      cupti::params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = image.data();
  info.counterDataImageSize = image.size();
  r = cuptiPmSamplingGetCounterDataInfo(&info);
  if (r != CUPTI_SUCCESS) return cupti_error(r, "cuptiPmSamplingGetCounterDataInfo");

  const std::uint64_t t1 = now_ns();
  PmSample s;
  for (std::size_t i = 1; i < info.numCompletedSamples; ++i) {  // the first may hold outliers (CUPTI, Kineto)
    ++w.samples;
    auto si = cupti::params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
        CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
    si.pPmSamplingObject = pm_;
    si.pCounterDataImage = image.data();
    si.counterDataImageSize = image.size();
    si.sampleIndex = i;
    bool ok = cuptiPmSamplingCounterDataGetSampleInfo(&si) == CUPTI_SUCCESS &&
              !cupti::host_evaluate(host_, image, i, names_, s.values) && si.endTimestamp > si.startTimestamp;
    for (double v : s.values) ok = ok && std::isfinite(v);
    if (!ok) {
      ++w.invalid;
      continue;
    }
    s.start_ns = si.startTimestamp;
    s.end_ns = si.endTimestamp;
    emit(s);
  }
  w.evaluate_ns = now_ns() - t1;
  return "";
}

void PmSampler::disable() {
  if (pm_ != nullptr) {
    auto p = cupti::params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
    p.pPmSamplingObject = pm_;
    cuptiPmSamplingDisable(&p);
    pm_ = nullptr;
  }
  host_free(host_);
  host_ = nullptr;
}

}  // namespace gpuperf::record::inject
