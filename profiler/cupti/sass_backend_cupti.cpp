// The SASS Metrics back end (sass_backend.hpp): the only code in gpuperf that calls cuptiSassMetrics*, the
// cubin CRC and the SASS-to-source correlation (CUPTI 13.0). Compiled into the module libgpuperf_cupti.so
// beside the Range Profiler's back end, so gpuperf starts where libcupti is missing.
#include <cuda.h>  // CUcontext, CUdevice (types only)
#include <cupti_callbacks.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_result.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "profiler/cubin/code_fingerprint.hpp"
#include "profiler/cubin/line_table.hpp"
#include "profiler/cupti/cupti_check.hpp"
#include "profiler/cupti/device_support_cupti.hpp"
#include "profiler/cupti/sass_backend.hpp"

namespace gpuperf::cupti {
namespace {

// The cubins of the modules loaded since tracking began, by CRC (the low 32 bits match a SASS record's
// cubinCrc). Filled from CUPTI's callback thread and read by the pass: one mutex.
class CubinStore {
 public:
  static CubinStore& instance() {
    static CubinStore* store = new CubinStore;  // never destroyed: a module may load during exit
    return *store;
  }
  void keep(const void* cubin, std::size_t size) {
    if (cubin == nullptr || size == 0) return;
    std::string bytes(static_cast<const char*>(cubin), size);
    CUpti_GetCubinCrcParams p{};
    p.size = CUpti_GetCubinCrcParamsSize;
    p.cubin = bytes.data();
    p.cubinSize = bytes.size();
    if (cuptiGetCubinCrc(&p) != CUPTI_SUCCESS) return;  // not a cubin CUPTI can read: no lines for it
    const auto functions = cubin::function_fingerprints(bytes.data(), bytes.size());
    std::lock_guard<std::mutex> lock(mutex_);
    cubins_[static_cast<std::uint32_t>(p.cubinCrc)] = std::move(bytes);
    // A name in two modules (a kernel in a library and in the program) keeps its first module's fingerprint.
    fingerprints_.insert(functions.begin(), functions.end());
  }
  std::map<std::string, std::string> fingerprints() {
    std::lock_guard<std::mutex> lock(mutex_);
    return fingerprints_;
  }
  // A copy-free view would race with a later keep() of the same CRC; cubins are a few hundred kB at most.
  bool find(std::uint32_t crc, std::string& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cubins_.find(crc);
    if (it == cubins_.end()) return false;
    out = it->second;
    return true;
  }

 private:
  std::mutex mutex_;
  std::map<std::uint32_t, std::string> cubins_;
  std::map<std::string, std::string> fingerprints_;  // mangled name -> code fingerprint
};

void CUPTIAPI on_resource(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE || id != CUPTI_CBID_RESOURCE_MODULE_LOADED || data == nullptr) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (module != nullptr) CubinStore::instance().keep(module->pCubin, module->cubinSize);
}

// The SASS metrics CUPTI offers for a chip, asked by name (works without a GPU); BackendError where it offers none.
std::vector<std::string> sass_chip_metrics(const std::string& chip) {
  auto n = params<CUpti_SassMetrics_GetNumOfMetrics_Params>(CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE);
  n.pChipName = chip.c_str();
  // Without a GPU, CUPTI 13.0 answers the first such question of a process CUPTI_ERROR_NOT_SUPPORTED whatever the
  // chip, and the same question again correctly (GA100 first: refused, then 48 metrics; TU104 second: 37): ask
  // twice before believing a refusal.
  if (cuptiSassMetricsGetNumOfMetrics(&n) != CUPTI_SUCCESS) {
    GPUPERF_CUPTI_CHECK(cuptiSassMetricsGetNumOfMetrics(&n));
  }
  std::vector<CUpti_SassMetrics_MetricDetails> details(n.numOfMetrics);
  auto list = params<CUpti_SassMetrics_GetMetrics_Params>(CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE);
  list.pChipName = chip.c_str();
  list.numOfMetrics = details.size();
  list.pMetricsList = details.data();
  GPUPERF_CUPTI_CHECK(cuptiSassMetricsGetMetrics(&list));
  std::vector<std::string> out;
  for (const auto& d : details) {
    if (d.pMetricName != nullptr) out.emplace_back(d.pMetricName);
  }
  return out;
}

class CuptiSassBackend final : public SassMetricsBackend {
 public:
  CuptiSassBackend(int device, CUcontext ctx, std::string chip) : device_(device), ctx_(ctx), chip_(std::move(chip)) {}

  ~CuptiSassBackend() override {
    // Teardown must not throw: a failure here leaves nothing to undo.
    if (enabled_) {
      auto p = params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
      p.ctx = ctx_;
      (void)cuptiSassMetricsDisable(&p);
    }
    if (configured_) {
      auto p = params<CUpti_SassMetricsUnsetConfig_Params>(CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE);
      p.deviceIndex = static_cast<std::uint32_t>(device_);
      (void)cuptiSassMetricsUnsetConfig(&p);
    }
  }

  std::string chip_name() const override { return chip_; }

  std::vector<std::string> chip_metrics() override { return sass_chip_metrics(chip_); }

  void configure(const std::vector<std::string>& metrics) override {
    if (configured_) {
      throw BackendError(FailureKind::other, "configure", 0, "the SASS metrics are configured once per back end");
    }
    std::vector<CUpti_SassMetrics_Config> configs;
    std::map<std::uint64_t, std::size_t> index;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      auto p = params<CUpti_SassMetrics_GetProperties_Params>(CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
      p.pChipName = chip_.c_str();
      p.pMetricName = metrics[i].c_str();
      GPUPERF_CUPTI_CHECK(cuptiSassMetricsGetProperties(&p));
      // One value per instruction for the whole GPU: the pass wants the kernel's total, not its spread.
      configs.push_back({p.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
      index[p.metric.metricId] = i;
    }
    configs_ = std::move(configs);
    index_ = std::move(index);
  }

  // The configuration is set at the first enable, right before it, and kept until the back end goes:
  // measured on an H100 (CUPTI 13.0), a configuration set before kernels ran and a Range Profiler session
  // came back with no records at all, and setting it a second time after an unset fails with
  // CUPTI_ERROR_OUT_OF_MEMORY.
  void enable() override {
    if (enabled_) return;
    if (!configured_) {
      auto set = params<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
      set.numOfMetricConfig = configs_.size();
      set.pConfigs = configs_.data();
      set.deviceIndex = static_cast<std::uint32_t>(device_);
      GPUPERF_CUPTI_CHECK(cuptiSassMetricsSetConfig(&set));
      configured_ = true;
    }
    auto p = params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
    p.ctx = ctx_;
    p.enableLazyPatching = 1;  // only the kernels launched while enabled are patched, at their first launch
    GPUPERF_CUPTI_CHECK(cuptiSassMetricsEnable(&p));
    enabled_ = true;
  }

  std::vector<SassValue> flush() override {
    auto props =
        params<CUpti_SassMetricsGetDataProperties_Params>(CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
    props.ctx = ctx_;
    GPUPERF_CUPTI_CHECK(cuptiSassMetricsGetDataProperties(&props));
    std::vector<SassValue> out;
    const std::size_t records = props.numOfPatchedInstructionRecords;
    const std::size_t instances = props.numOfInstances;
    if (records == 0 || instances == 0) return out;
    std::vector<CUpti_SassMetrics_Data> data(records);
    std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
    // structSize left 0, as CUPTI 13.0's own sample does: the header names no size macro for this struct.
    for (std::size_t i = 0; i < records; ++i) data[i].pInstanceValues = &values[i * instances];
    auto fl = params<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
    fl.ctx = ctx_;
    fl.numOfPatchedInstructionRecords = records;
    fl.numOfInstances = instances;
    fl.pMetricsData = data.data();
    GPUPERF_CUPTI_CHECK(cuptiSassMetricsFlushData(&fl));
    // A record is one instruction; its instance values carry their metric's id (one per metric and
    // instance at GPU granularity). Summed per metric.
    for (const auto& d : data) {
      std::map<std::size_t, std::uint64_t> sums;
      for (std::size_t k = 0; k < instances; ++k) {
        const auto it = index_.find(d.pInstanceValues[k].metricId);
        if (it != index_.end()) sums[it->second] += d.pInstanceValues[k].value;
      }
      for (const auto& [metric, value] : sums) {
        SassValue v;
        v.cubin_crc = d.cubinCrc;
        v.function = d.functionName != nullptr ? d.functionName : "";
        v.pc_offset = d.pcOffset;
        v.metric = metric;
        v.value = value;
        out.push_back(std::move(v));
      }
    }
    return out;
  }

  void disable() override {
    if (!enabled_) return;
    enabled_ = false;
    auto p = params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
    p.ctx = ctx_;
    GPUPERF_CUPTI_CHECK(cuptiSassMetricsDisable(&p));
  }

  SassLocation locate(std::uint32_t cubin_crc, const std::string& function, std::uint32_t pc_offset) override {
    SassLocation out;
    if (cubin_crc != cached_crc_ || cached_cubin_.empty()) {
      if (!CubinStore::instance().find(cubin_crc, cached_cubin_)) return out;  // no_cubin
      cached_crc_ = cubin_crc;
      cached_lines_ = read_line_table(cached_cubin_);
    }
    if (auto at = cached_lines_.locate(function, pc_offset); at && at->line > 0 && !at->file.empty()) {
      out.kind = SassLocation::Kind::line;
      out.file = at->file;
      out.line = at->line;
      out.inlined_at_file = at->inlined_at_file;
      out.inlined_at_line = at->inlined_at_line;
      return out;
    }
    CUpti_GetSassToSourceCorrelationParams p{};
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = cached_cubin_.data();
    p.cubinSize = cached_cubin_.size();
    p.functionName = function.c_str();
    p.pcOffset = pc_offset;
    // Fails (CUPTI_ERROR_UNKNOWN or INVALID_MODULE) when the cubin has no line table for this PC.
    if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS || p.fileName == nullptr) {
      std::free(p.fileName);
      std::free(p.dirName);
      out.kind = SassLocation::Kind::no_line_info;
      return out;
    }
    const std::string dir = p.dirName != nullptr ? p.dirName : "";
    const std::string file = p.fileName;
    std::free(p.fileName);  // CUPTI allocates both; the caller frees them
    std::free(p.dirName);
    out.kind = SassLocation::Kind::line;
    out.file = (dir.empty() || file.front() == '/') ? file : dir + (dir.back() == '/' ? "" : "/") + file;
    out.line = p.lineNumber;
    return out;
  }

 private:
  int device_;
  CUcontext ctx_;
  std::string chip_;
  bool configured_ = false;
  bool enabled_ = false;
  std::vector<CUpti_SassMetrics_Config> configs_;
  std::map<std::uint64_t, std::size_t> index_;  // CUPTI metric id -> index into configure()'s names
  // The cubin's own line table, or an empty one where it has none or one this reader cannot read (then
  // CUPTI's correlation gives every line, without inlining).
  static cubin::LineTable read_line_table(const std::string& cubin) {
    try {
      return cubin::LineTable::read(cubin::ElfFile::parse(cubin.data(), cubin.size(), "cubin"));
    } catch (const cubin::ElfError&) {
      return cubin::LineTable{};
    }
  }

  std::uint32_t cached_crc_ = 0;
  std::string cached_cubin_;
  cubin::LineTable cached_lines_;
};

class CuptiSassFactory final : public SassBackendFactory {
 public:
  std::string track_modules() const override {
    static std::once_flag once;
    static std::string result;
    std::call_once(once, [] {
      CUpti_SubscriberHandle subscriber = nullptr;
      CUptiResult r = cuptiSubscribe(&subscriber, on_resource, nullptr);
      if (r == CUPTI_SUCCESS)
        r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
      if (r != CUPTI_SUCCESS) {
        const char* name = nullptr;
        if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || name == nullptr) name = "CUPTI_ERROR_?";
        result = std::string("cannot follow module loads (cuptiSubscribe: ") + name +
                 (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                      ? "): another tool in this process (torch.profiler, Nsight) holds CUPTI's one subscriber"
                      : ")");
      }
    });
    return result;
  }

  void keep_cubin(const void* cubin, std::size_t size) const override { CubinStore::instance().keep(cubin, size); }

  std::vector<std::string> chip_metrics(const std::string& chip) const override { return sass_chip_metrics(chip); }

  std::map<std::string, std::string> function_fingerprints() const override {
    return CubinStore::instance().fingerprints();
  }

  std::unique_ptr<SassMetricsBackend> open_device(int device, void* cu_context) const override {
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    GPUPERF_CUPTI_CHECK(cuptiProfilerInitialize(&init));  // shared with the Range Profiler; no deinit here

    std::string chip_name = supported_chip_name(device, ProfilerApi::sass_metrics);
    return std::make_unique<CuptiSassBackend>(device, static_cast<CUcontext>(cu_context), std::move(chip_name));
  }
};

}  // namespace
}  // namespace gpuperf::cupti

extern "C" __attribute__((visibility("default"))) const gpuperf::cupti::SassBackendFactory* gpuperf_cupti_sass_factory(
    int abi_version) {
  static const gpuperf::cupti::CuptiSassFactory factory;
  return abi_version == gpuperf::cupti::kSassBackendAbiVersion ? &factory : nullptr;
}
