#include "profiler/cupti/pm_host.hpp"

#include <cupti_result.h>

#include "profiler/cupti/cupti_check.hpp"

namespace gpuperf::cupti {
namespace {

std::string result_text(CUptiResult r, const char* call) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return std::string(call) + ": " + (s != nullptr ? s : "unknown CUPTI error");
}

}  // namespace

void host_free(CUpti_Profiler_Host_Object* h) {
  if (h == nullptr) return;
  auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = h;
  cuptiProfilerHostDeinitialize(&p);
}

CUpti_Profiler_Host_Object* pm_host_object(const char* chip, const std::uint8_t* avail,
                                           const std::vector<const char*>& metrics, std::vector<std::uint8_t>& image,
                                           std::size_t* passes, std::string* error) {
  auto init = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  init.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
  init.pChipName = chip;
  init.pCounterAvailabilityImage = avail;
  CUptiResult r = cuptiProfilerHostInitialize(&init);
  if (r != CUPTI_SUCCESS) return *error = result_text(r, "cuptiProfilerHostInitialize"), nullptr;
  auto add =
      params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = init.pHostObject;
  add.ppMetricNames = const_cast<const char**>(metrics.data());
  add.numMetrics = metrics.size();
  r = cuptiProfilerHostConfigAddMetrics(&add);
  auto sz =
      params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  sz.pHostObject = init.pHostObject;
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetConfigImageSize(&sz);
  if (r == CUPTI_SUCCESS) {
    image.assign(sz.configImageSize, 0);
    auto img = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    img.pHostObject = init.pHostObject;
    img.configImageSize = image.size();
    img.pConfigImage = image.data();
    r = cuptiProfilerHostGetConfigImage(&img);
  }
  auto np = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  np.configImageSize = image.size();
  np.pConfigImage = image.data();
  if (r == CUPTI_SUCCESS) r = cuptiProfilerHostGetNumOfPasses(&np);
  if (r != CUPTI_SUCCESS) {
    host_free(init.pHostObject);
    *error = result_text(r, "the PM-sampling configuration");
    return nullptr;
  }
  *passes = np.numOfPasses;
  return init.pHostObject;
}

std::size_t pm_sampling_passes(const std::string& chip, const std::vector<std::string>& metrics) {
  std::vector<const char*> names;
  for (const std::string& m : metrics) names.push_back(m.c_str());
  std::vector<std::uint8_t> image;
  std::size_t passes = 0;
  std::string ignored;
  CUpti_Profiler_Host_Object* h = pm_host_object(chip.c_str(), nullptr, names, image, &passes, &ignored);
  if (h == nullptr) return 0;
  host_free(h);
  return passes;
}

}  // namespace gpuperf::cupti
