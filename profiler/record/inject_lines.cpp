#include "profiler/record/inject_lines.hpp"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/kernel_kind.hpp"
#include "profiler/cupti/monotonic_clock.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/sass_backend.hpp"
#include "profiler/record/inject_shared.hpp"
#include "profiler/source_line_aggregate.hpp"

namespace gpuperf::record::inject {
namespace {

// One device's SASS back end, opened at its first instrumented launch, for the context it came on (the
// configuration is per device and set once: a second context of the same device gets no lines).
struct Device {
  std::unique_ptr<cupti::SassMetricsBackend> backend;
  CUcontext context = nullptr;
  std::vector<SassCounter> counter_of;  // per configured metric
  std::string missing;                  // counters this chip lacks, named in every launch's S line
};

struct LinesState {
  std::mutex mutex;  // the fields below; taken under inject_metrics' mutex, never the other way round
  const cupti::SassBackendFactory* sass = nullptr;
  std::map<std::uint32_t, Device> devices;
  std::set<std::string> done;                              // identities instrumented (or tried) here
  std::unordered_map<std::string, std::uint64_t> strings;  // J ids
  std::string off;                                         // set once lines are given up in this process
};

LinesState* g_lines = nullptr;  // never freed: a launch may come during exit

// This thread's instrumented launch, from lines_begin to lines_end.
thread_local Device* t_device = nullptr;
thread_local std::uint32_t t_correlation = 0;
thread_local std::uint64_t t_begin_ns = 0;

std::string driver_error(CUresult r, const char* call) {
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  return std::string(call) + ": " + (s != nullptr ? s : "unknown CUDA error");
}

bool is_environment(cupti::FailureKind k) {
  return k == cupti::FailureKind::insufficient_privileges || k == cupti::FailureKind::profiler_busy ||
         k == cupti::FailureKind::unsupported_device || k == cupti::FailureKind::no_device;
}

// Gives lines up for the rest of the process (g_lines->mutex held): one "S 0" line says why.
void give_up_locked(const char* status, const std::string& why) {
  if (!g_lines->off.empty()) return;
  g_lines->off = why;
  write_line(std::string("S 0 ") + status + " " + why);
}

// The device's back end, opened and configured with the counters its chip offers (g_lines->mutex held).
// Throws BackendError.
Device& device_for(std::uint32_t device, CUcontext ctx) {
  auto [it, fresh] = g_lines->devices.try_emplace(device);
  Device& d = it->second;
  if (!fresh) return d;
  d.context = ctx;
  d.backend = g_lines->sass->open_device(static_cast<int>(device), ctx);
  std::vector<std::string> offered = d.backend->chip_metrics();
  const std::set<std::string> have(offered.begin(), offered.end());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kSassCounters; ++i) {
    const std::string name = sass_counter_names()[i];
    if (have.count(name) == 0) {
      d.missing += (d.missing.empty() ? "" : ", ") + name;
      continue;
    }
    names.push_back(name);
    d.counter_of.push_back(static_cast<SassCounter>(i));
  }
  if (names.empty()) {
    throw cupti::BackendError(cupti::FailureKind::unsupported_device, "cuptiSassMetricsGetMetrics", 0,
                              "CUPTI offers none of the SASS metrics source lines need on " + d.backend->chip_name());
  }
  d.backend->configure(names);  // set at the first enable, and kept
  return d;
}

// The J id of a function name or source path, written once (g_lines->mutex held).
std::uint64_t string_id_locked(const std::string& text) {
  auto [it, fresh] = g_lines->strings.try_emplace(text, g_lines->strings.size() + 1);
  if (fresh) write_line("J " + std::to_string(it->second) + " " + text);
  return it->second;
}

// A counter as the L line writes it: a whole count as an integer, else the shortest round trip.
std::string number(double v) {
  char text[32];
  if (v == static_cast<double>(static_cast<unsigned long long>(v)) && v < 1e19) {
    std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(v));
  } else {
    std::snprintf(text, sizeof text, "%.17g", v);
  }
  return text;
}

// A single-line message for an S line.
std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

void write_lines_locked(std::uint32_t correlation, const SourceLines& lines) {
  for (const SourceLine& l : lines.lines) {
    std::string out = "L " + std::to_string(correlation) + " " + std::to_string(string_id_locked(l.function)) + " " +
                      std::to_string(l.file.empty() ? 0 : string_id_locked(l.file)) + " " + std::to_string(l.line) +
                      " " + std::to_string(l.sass_offset);
    for (double c : {l.inst_executed, l.thread_inst_executed, l.global_ld_requests, l.global_st_requests,
                     l.global_ld_sectors, l.global_ld_sectors_ideal, l.global_st_sectors, l.global_st_sectors_ideal,
                     l.shared_wavefronts, l.shared_wavefronts_ideal, l.local_sectors}) {
      out += ' ';
      out += number(c);
    }
    write_line(out);
  }
}

}  // namespace

void init_lines(CUpti_SubscriberHandle subscriber, const cupti::SassBackendFactory* sass) {
  const char* on = std::getenv("GPUPERF_RECORD_SOURCE_LINES");
  if (on == nullptr || *on != '1') return;
  g_lines = new LinesState;
  if (sass == nullptr) {
    std::lock_guard<std::mutex> lock(g_lines->mutex);
    give_up_locked("unsupported", "gpuperf's CUPTI back end has no SASS metrics (built from an older gpuperf)");
    return;
  }
  const CUptiResult r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
  if (r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    std::lock_guard<std::mutex> lock(g_lines->mutex);
    give_up_locked("unsupported", std::string("cannot follow module loads: cuptiEnableCallback: ") + (s ? s : "?"));
    return;
  }
  g_lines->sass = sass;
  write_line("S 0 ok");
}

void on_resource(CUpti_CallbackId cbid, const void* data) {
  if (g_lines == nullptr || g_lines->sass == nullptr || cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED || data == nullptr)
    return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  // A copy of the cubin (its line table maps the SASS records to lines): the loader may free its buffer.
  if (module != nullptr) g_lines->sass->keep_cubin(module->pCubin, module->cubinSize);
}

bool lines_wanted(const CUpti_CallbackData* data, const std::string& identity) {
  if (g_lines == nullptr || g_lines->sass == nullptr) return false;
  std::lock_guard<std::mutex> lock(g_lines->mutex);
  if (!g_lines->off.empty() || g_lines->done.count(identity) != 0) return false;
  return kernel_kind(data->symbolName) == KernelKind::compute;
}

bool lines_begin(const CUpti_CallbackData* data, const std::string& identity) {
  std::lock_guard<std::mutex> lock(g_lines->mutex);
  if (!g_lines->off.empty() || !g_lines->done.insert(identity).second) return false;
  const std::uint32_t correlation = data->correlationId;
  const std::uint64_t begin = monotonic_ns();
  std::uint32_t device = 0;
  try {
    if (cuptiGetDeviceId(data->context, &device) != CUPTI_SUCCESS) throw std::runtime_error("cuptiGetDeviceId failed");
    Device& d = device_for(device, data->context);
    if (d.context != data->context) {
      write_line("S " + std::to_string(correlation) + " unsupported a second context on device " +
                 std::to_string(device) + ": source lines come from its first context only");
      write_line("I " + std::to_string(correlation) + " " + std::to_string(monotonic_ns() - begin));
      return false;
    }
    // Nothing of the program's may be pending: a kernel launched while enabled would be patched and counted.
    if (const CUresult r = cuCtxSynchronize(); r != CUDA_SUCCESS)
      throw std::runtime_error(driver_error(r, "cuCtxSynchronize"));
    d.backend->enable();
    t_device = &d;
  } catch (const cupti::BackendError& e) {
    if (is_environment(e.kind())) {
      give_up_locked("unsupported", std::string("CUPTI SASS metrics: ") + one_line(e.what()));
    } else {
      write_line("S " + std::to_string(correlation) + " failed " + one_line(e.what()));
      write_line("I " + std::to_string(correlation) + " " + std::to_string(monotonic_ns() - begin));
    }
    return false;
  } catch (const std::exception& e) {
    write_line("S " + std::to_string(correlation) + " failed " + one_line(e.what()));
    write_line("I " + std::to_string(correlation) + " " + std::to_string(monotonic_ns() - begin));
    return false;
  }
  t_correlation = correlation;
  t_begin_ns = begin;
  return true;
}

std::uint64_t lines_end() {
  if (t_device == nullptr) return 0;
  Device& d = *t_device;
  t_device = nullptr;
  std::lock_guard<std::mutex> lock(g_lines->mutex);
  const std::string corr = std::to_string(t_correlation);
  std::vector<cupti::SassValue> values;
  std::string failure;
  try {
    if (const CUresult r = cuCtxSynchronize(); r != CUDA_SUCCESS)
      throw std::runtime_error(driver_error(r, "cuCtxSynchronize"));
    values = d.backend->flush();
  } catch (const std::exception& e) {
    failure = one_line(e.what());
  }
  try {
    d.backend->disable();
  } catch (const std::exception& e) {
    // The kernels may stay instrumented: enable no more, so later launches run (and are timed as) the program's code.
    give_up_locked("failed", std::string("cuptiSassMetricsDisable failed: ") + one_line(e.what()));
    if (failure.empty()) failure = std::string("cuptiSassMetricsDisable failed: ") + one_line(e.what());
  }
  if (failure.empty() && values.empty()) failure = "CUPTI returned no SASS records for the instrumented launch";
  if (failure.empty()) {
    // Raw paths and no text: the recorder reads the text and names the paths once the program has ended.
    SourceTextCache texts([](const std::string&) { return std::vector<std::string>{}; },
                          [](const std::string& path) { return path; });
    const LocateFn locate = [&d](std::uint32_t crc, const std::string& f, std::uint32_t pc) {
      return d.backend->locate(crc, f, pc);
    };
    SourceLines lines = aggregate_source_lines(values, d.counter_of, 1, locate, texts);
    if (!d.missing.empty()) {
      lines.message += (lines.message.empty() ? "" : "; ") + ("not on " + d.backend->chip_name() + ": " + d.missing);
    }
    write_lines_locked(t_correlation, lines);
    write_line("S " + corr + " ok " + one_line(lines.message));
  } else {
    write_line("S " + corr + " failed " + failure);
  }
  const std::uint64_t ns = monotonic_ns() - t_begin_ns;
  write_line("I " + corr + " " + std::to_string(ns));
  return ns;
}

}  // namespace gpuperf::record::inject
