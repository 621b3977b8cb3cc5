// The seam between the source-line pass and CUPTI's SASS Metrics API: the only code that calls it
// implements SassMetricsBackend (sass_backend_cupti.cpp, in the module libgpuperf_cupti.so beside the
// Range Profiler's back end). Tests implement it with a fake. No CUDA or CUPTI header here.
//
// The CUPTI call order it follows (CUPTI 13.0, cupti_sass_metrics.h; ../shared notes "Source lines"):
//   keep cubins: a resource-domain subscriber copies CUpti_ModuleResourceData::pCubin at
//                CUPTI_CBID_RESOURCE_MODULE_LOADED (CUPTI allows one subscriber per process);
//   open:        cuptiProfilerInitialize, cuptiDeviceGetChipName, cuptiSassMetricsGetNumOfMetrics/GetMetrics;
//   configure:   cuptiSassMetricsGetProperties (name -> id), cuptiSassMetricsSetConfig (GPU granularity);
//   per group:   cuptiSassMetricsEnable (lazy patching: a kernel is patched at its first launch), then per
//                instance its launches and cuptiSassMetricsGetDataProperties + cuptiSassMetricsFlushData
//                (counts add up from enable to flush, with no launch id), cuptiSassMetricsDisable;
//   lines:       cuptiGetCubinCrc matches a record's cubin CRC to a kept cubin, cuptiGetSassToSourceCorrelation
//                maps (cubin, function, PC offset) to file and line (needs nvcc -lineinfo or similar); the
//                cubin's own line table (profiler/cubin/line_table.hpp) is read first, as only it says where
//                code was inlined, and CUPTI's correlation answers for what it does not cover.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuperf::cupti {

// One instruction's count of one configured metric since the last flush, summed over the output instances.
struct SassValue {
  std::uint32_t cubin_crc = 0;  // the CRC of the cubin the function is in (CUpti_SassMetrics_Data::cubinCrc)
  std::string function;         // the function's (mangled) name
  std::uint32_t pc_offset = 0;  // bytes from the function's start
  std::size_t metric = 0;       // index into the names given to configure()
  std::uint64_t value = 0;
};

// Where an instruction comes from.
struct SassLocation {
  enum class Kind {
    line,          // `file` and `line` are set
    no_line_info,  // the cubin is known but has no line table for this PC (built without -lineinfo)
    no_cubin,      // no kept cubin has this CRC (its module was loaded before tracking began)
  };
  Kind kind = Kind::no_cubin;
  std::string file;  // as the line table names it, joined to its directory when that is given
  std::uint32_t line = 0;
  // Code inlined from a helper: the kernel's line that calls it ("" and 0: the kernel's own code, or unknown).
  std::string inlined_at_file;
  std::uint32_t inlined_at_line = 0;
};

class SassMetricsBackend {
 public:
  virtual ~SassMetricsBackend() = default;
  virtual std::string chip_name() const = 0;
  // The SASS metrics this chip offers ("smsp__sass_inst_executed", ...).
  virtual std::vector<std::string> chip_metrics() = 0;
  // Collects `metrics` (names among chip_metrics()) from the next enable() on. Throws BackendError.
  virtual void configure(const std::vector<std::string>& metrics) = 0;
  // Patches kernels at their next launch on the device's context, from now until disable().
  virtual void enable() = 0;
  // Every instruction's counts since enable() or the last flush, then starts again from zero.
  virtual std::vector<SassValue> flush() = 0;
  // Stops patching (launches after it run the original code). Safe to call when not enabled.
  virtual void disable() = 0;
  virtual SassLocation locate(std::uint32_t cubin_crc, const std::string& function, std::uint32_t pc_offset) = 0;
};

// How the source-line pass asks the module for a back end. The module exports
//   extern "C" const gpuperf::cupti::SassBackendFactory* gpuperf_cupti_sass_factory(int abi_version);
class SassBackendFactory {
 public:
  virtual ~SassBackendFactory() = default;
  // Subscribes to CUPTI's resource callbacks, once per process, to keep each module's cubin as CUDA loads
  // it: call before the kernels' modules load (CUDA loads them lazily, at a kernel's first use). Returns ""
  // or why it could not (another tool is CUPTI's subscriber in this process: then call keep_cubin instead).
  virtual std::string track_modules() const = 0;
  // For a process whose subscriber is someone else's (gpuperf record's injection library): a module's
  // cubin, copied, as its MODULE_LOADED callback shows it.
  virtual void keep_cubin(const void* cubin, std::size_t size) const = 0;
  // The back end for CUDA device `device`, whose current context is `cu_context` (CUcontext). Throws
  // BackendError (unsupported_device: no SASS metrics on this chip or driver; profiler_busy; ...).
  virtual std::unique_ptr<SassMetricsBackend> open_device(int device, void* cu_context) const = 0;
  // The code fingerprint (profiler/cubin/code_fingerprint.hpp) of every function in the cubins kept since
  // track_modules() or keep_cubin(), by mangled name. Empty when none was kept.
  virtual std::map<std::string, std::string> function_fingerprints() const = 0;
  // The SASS metrics `chip` ("GA100") offers, asked of CUPTI by name: no GPU needed. Throws BackendError
  // (unsupported) where it offers none.
  virtual std::vector<std::string> chip_metrics(const std::string& chip) const = 0;
};

// 2: function_fingerprints. 3: chip_metrics by chip name.
inline constexpr int kSassBackendAbiVersion = 3;
inline constexpr const char* kSassFactorySymbol = "gpuperf_cupti_sass_factory";

}  // namespace gpuperf::cupti
