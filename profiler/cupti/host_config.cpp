#include "profiler/cupti/host_config.hpp"

#include "profiler/cupti/cupti_check.hpp"

namespace gpuperf::cupti {

std::string CuptiFailure::text() const {
  const char* name = nullptr;
  if (cuptiGetResultString(result, &name) != CUPTI_SUCCESS || name == nullptr) name = "unknown CUPTI error";
  return std::string(call != nullptr ? call : "CUPTI") + ": " + name;
}

CuptiFailure host_initialize(CUpti_ProfilerType type, const char* chip, const std::uint8_t* avail,
                             CUpti_Profiler_Host_Object** host) {
  auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = type;
  p.pChipName = chip;
  p.pCounterAvailabilityImage = avail;
  const CUptiResult r = cuptiProfilerHostInitialize(&p);
  *host = r == CUPTI_SUCCESS ? p.pHostObject : nullptr;
  return r == CUPTI_SUCCESS ? CuptiFailure{} : CuptiFailure{r, "cuptiProfilerHostInitialize"};
}

void host_free(CUpti_Profiler_Host_Object* h) {
  if (h == nullptr) return;
  auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = h;
  (void)cuptiProfilerHostDeinitialize(&p);
}

namespace {

CuptiFailure configure(CUpti_Profiler_Host_Object* host, const std::vector<const char*>& metrics,
                       HostConfiguration& out) {
  auto add =
      params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host;
  add.ppMetricNames = const_cast<const char**>(metrics.data());
  add.numMetrics = metrics.size();
  CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
  if (r != CUPTI_SUCCESS) return {r, "cuptiProfilerHostConfigAddMetrics"};
  auto size =
      params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host;
  r = cuptiProfilerHostGetConfigImageSize(&size);
  if (r != CUPTI_SUCCESS) return {r, "cuptiProfilerHostGetConfigImageSize"};
  out.image.assign(size.configImageSize, 0);
  auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = host;
  image.configImageSize = out.image.size();
  image.pConfigImage = out.image.data();
  r = cuptiProfilerHostGetConfigImage(&image);
  if (r != CUPTI_SUCCESS) return {r, "cuptiProfilerHostGetConfigImage"};
  auto passes =
      params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = out.image.size();
  passes.pConfigImage = out.image.data();
  r = cuptiProfilerHostGetNumOfPasses(&passes);
  if (r != CUPTI_SUCCESS) return {r, "cuptiProfilerHostGetNumOfPasses"};
  out.passes = passes.numOfPasses;
  return {};
}

}  // namespace

CuptiFailure host_configure(CUpti_ProfilerType type, const char* chip, const std::uint8_t* avail,
                            const std::vector<const char*>& metrics, HostConfiguration& out) {
  out = HostConfiguration{};
  CUpti_Profiler_Host_Object* host = nullptr;
  if (CuptiFailure f = host_initialize(type, chip, avail, &host)) return f;
  if (CuptiFailure f = configure(host, metrics, out)) {
    host_free(host);
    out = HostConfiguration{};
    return f;
  }
  out.host = host;
  return {};
}

CuptiFailure host_evaluate(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& counter_data,
                           std::size_t index, const std::vector<const char*>& metrics, std::vector<double>& values) {
  values.assign(metrics.size(), 0.0);
  auto p = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  p.pHostObject = host;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = index;
  p.ppMetricNames = const_cast<const char**>(metrics.data());
  p.numMetrics = metrics.size();
  p.pMetricValues = values.data();
  const CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&p);
  return r == CUPTI_SUCCESS ? CuptiFailure{} : CuptiFailure{r, "cuptiProfilerHostEvaluateToGpuValues"};
}

std::size_t pm_sampling_passes(const std::string& chip, const std::vector<std::string>& metrics,
                               const std::uint8_t* avail) {
  std::vector<const char*> names;
  names.reserve(metrics.size());
  for (const std::string& m : metrics) names.push_back(m.c_str());
  HostConfiguration c;
  if (host_configure(CUPTI_PROFILER_TYPE_PM_SAMPLING, chip.c_str(), avail, names, c)) return 0;
  host_free(c.host);
  return c.passes;
}

}  // namespace gpuperf::cupti
