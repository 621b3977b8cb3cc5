#include "profiler/record/inject/inject_lines.hpp"

#include <cuda.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiler/cupti/monotonic_clock.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/cupti/sass_backend.hpp"
#include "profiler/record/inject/inject_guard.hpp"
#include "profiler/record/inject/inject_shared.hpp"
#include "profiler/record/line_fields.hpp"
#include "profiler/record/record_codec.hpp"
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

// When and where an instrumented launch's counters are read (GPUPERF_RECORD_LINES_FLUSH): at its launch
// call's exit or at the next launch's entry (after the call has returned: CUPTI's own handling of the launch
// is done), on the launching thread inside the callback or on a thread of ours outside any callback. On an
// H100 (CUPTI 13.0), read at the exit on the launching thread, every record came back zero though the
// kernel ran patched (50x its time): bench/record/record_lines_gpu.sh tries each way. "quiet" also pauses
// kernel tracing while the launch is instrumented (run's pass runs with it off); its I line then names the
// launch's identity, as no K line does. Default (unset): next-quiet, the first way that gave counts on the H100
// (2026-11-27: `next` gave all zeros again; `next-quiet` gave lines whose warp instructions sum to the
// kernel's `instructions` for the probe's three kernels and Triton's add_kernel).
enum class ReadAt { exit, next };
struct ReadMode {
  ReadAt at = ReadAt::next;
  bool helper = false;
  bool quiet = false;  // kernel tracing paused while the launch is instrumented (its I line names its identity)
};

ReadMode read_mode() {
  ReadMode m;
  const std::string& flush = config().lines_flush;
  const std::string s = !flush.empty() ? flush : "next-quiet";
  if (s.rfind("exit", 0) == 0) m.at = ReadAt::exit;
  m.helper = s.find("thread") != std::string::npos;
  m.quiet = s.find("quiet") != std::string::npos;
  return m;
}

// The instrumented launch whose counters are not read yet (one at a time: it holds the gate exclusively).
struct Pending {
  Device* device = nullptr;
  std::uint32_t correlation = 0;
  std::string key;             // its identity as inject_metrics keys it (the watchdog's G line)
  std::uint64_t begin_ns = 0;  // when lines_begin began
  std::uint64_t held_ns = 0;   // read at the next launch: what lines_begin held the program (sync, enable)
  std::optional<InstrumentedLine::Identity> identity;  // quiet: its I line names the launch (no K line)
};

thread_local bool t_began = false;  // this thread's launch call is the pending instrumented launch

// The instrumented launch's waits and CUPTI calls (its context's synchronize, the SASS metrics' enable, flush and
// disable) as a profiled launch's are: watched by the watchdog (--profile-watchdog-ms: one that outlives it is
// given up, a G line says which, and nothing more is profiled) and kept apart from the periodic flush, which
// skips CUPTI meanwhile (inject_guard.hpp). Not the program's own time between them.
class Watched {
 public:
  Watched(std::uint32_t correlation, const std::string& key) { guard_begin(correlation, key); }
  ~Watched() { guard_end(); }
  Watched(const Watched&) = delete;
  Watched& operator=(const Watched&) = delete;
};
std::atomic<bool> g_pending{false};

struct LinesState {
  std::mutex mutex;  // the fields below; taken under inject_metrics' mutex, never the other way round
  const cupti::SassBackendFactory* sass = nullptr;
  std::map<std::uint32_t, Device> devices;
  std::set<std::string> done;                              // identities instrumented (or tried) here
  std::unordered_map<std::string, std::uint64_t> strings;  // J ids
  std::string off;                                         // set once lines are given up in this process
  ReadMode mode;
  Pending pending;
};

LinesState* g_lines = nullptr;  // never freed: a launch may come during exit

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
void give_up_locked(Status status, const std::string& why) {
  if (!g_lines->off.empty()) return;
  g_lines->off = why;
  write_line(encode(SourceStatusLine{0, status, why}));
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
  if (fresh) write_line(encode(SourceStringLine{it->second, text}));
  return it->second;
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
    SourceLineLine out;
    out.correlation = correlation;
    out.function_id = string_id_locked(l.function);
    out.file_id = l.file.empty() ? 0 : string_id_locked(l.file);
    out.line = l.line;
    out.sass_offset = l.sass_offset;
    out.counters = {l.inst_executed,     l.thread_inst_executed,    l.global_ld_requests, l.global_st_requests,
                    l.global_ld_sectors, l.global_ld_sectors_ideal, l.global_st_sectors,  l.global_st_sectors_ideal,
                    l.shared_wavefronts, l.shared_wavefronts_ideal, l.local_sectors};
    // Code inlined from a helper: the call site's file id and line after the counters (absent otherwise).
    if (!l.inlined_at_file.empty()) {
      out.inlined_at_file_id = string_id_locked(l.inlined_at_file);
      out.inlined_at_line = l.inlined_at_line;
    }
    write_line(encode(out));
  }
}

}  // namespace

bool source_lines_asked() { return config().source_lines; }

void init_lines(CUpti_SubscriberHandle subscriber, const cupti::SassBackendFactory* sass) {
  if (!source_lines_asked()) return;
  g_lines = new LinesState;
  if (sass == nullptr) {
    std::lock_guard<std::mutex> lock(g_lines->mutex);
    give_up_locked(Status::unsupported, "gpuperf's CUPTI back end has no SASS metrics (built from an older gpuperf)");
    return;
  }
  const CUptiResult r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
  if (r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    std::lock_guard<std::mutex> lock(g_lines->mutex);
    give_up_locked(Status::unsupported,
                   std::string("cannot follow module loads: cuptiEnableCallback: ") + (s ? s : "?"));
    return;
  }
  g_lines->sass = sass;
  g_lines->mode = read_mode();
  write_line(encode(SourceStatusLine{0, Status::ok, ""}));
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
  // The launch policy's own answer (inject_guard.hpp): the built-in patterns and --communication-kernel's.
  if (communication_launch(data->symbolName)) return false;
  std::lock_guard<std::mutex> lock(g_lines->mutex);
  return g_lines->off.empty() && g_lines->done.count(identity) == 0;
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
      write_line(encode(SourceStatusLine{
          correlation, Status::unsupported,
          "a second context on device " + std::to_string(device) + ": source lines come from its first context only"}));
      write_line(encode(InstrumentedLine{correlation, monotonic_ns() - begin, std::nullopt}));
      return false;
    }
    // Quiet: its I line names the launch, from the identity key "<symbol> <gx> <gy> <gz> <bx> <by> <bz> <range id>"
    // (inject_metrics.cpp); read before anything is enabled.
    std::optional<InstrumentedLine::Identity> quiet;
    if (g_lines->mode.quiet) {
      LineFields dims(std::string_view(identity).substr(std::strlen(data->symbolName)));
      InstrumentedLine::Identity& id = quiet.emplace();
      id.device = device;
      if (!(dims.next(id.grid[0]) && dims.next(id.grid[1]) && dims.next(id.grid[2]) && dims.next(id.block[0]) &&
            dims.next(id.block[1]) && dims.next(id.block[2]) && dims.next(id.range) && dims.at_end()))
        throw std::runtime_error("a launch identity that is not <symbol> <grid> <block> <range id>: " + identity);
    }
    const Watched watched(correlation, identity);
    // Nothing of the program's may be pending: a kernel launched while enabled would be patched and counted.
    if (const CUresult r = cuCtxSynchronize(); r != CUDA_SUCCESS)
      throw std::runtime_error(driver_error(r, "cuCtxSynchronize"));
    d.backend->enable();
    g_lines->pending = Pending{&d, correlation, identity, begin, 0, std::nullopt};
    if (quiet) {
      quiet->function_id = string_id_locked(data->symbolName);
      g_lines->pending.identity = quiet;
      set_kernel_tracing(false);
    }
    g_lines->pending.held_ns = monotonic_ns() - begin;
    g_pending = true;
    t_began = true;
    // Until its lines are read: a process that ends first leaves this launch failed ("cut off").
    write_line(encode(SourceStatusLine{correlation, Status::failed, "not read yet"}));
  } catch (const cupti::BackendError& e) {
    if (is_environment(e.kind())) {
      give_up_locked(Status::unsupported, std::string("CUPTI SASS metrics: ") + one_line(e.what()));
    } else {
      write_line(encode(SourceStatusLine{correlation, Status::failed, one_line(e.what())}));
      write_line(encode(InstrumentedLine{correlation, monotonic_ns() - begin, std::nullopt}));
    }
    return false;
  } catch (const std::exception& e) {
    write_line(encode(SourceStatusLine{correlation, Status::failed, one_line(e.what())}));
    write_line(encode(InstrumentedLine{correlation, monotonic_ns() - begin, std::nullopt}));
    return false;
  }
  return true;
}

namespace {

// Reads the pending launch's counters, disables, and writes its lines (g_lines->mutex held, the gate held
// exclusively by the caller). Returns the wall time since its lines_begin (ns).
std::uint64_t read_pending_locked() {
  const Pending p = g_lines->pending;
  g_lines->pending = Pending{};
  g_pending = false;
  if (p.device == nullptr) return 0;
  const std::uint64_t read_begin = monotonic_ns();
  Device& d = *p.device;
  std::vector<cupti::SassValue> values;
  std::string failure, disable_failure;
  const auto read = [&] {
    try {
      // The launch's context, whatever the calling thread's is (a thread of ours has none; the program's
      // next launch may come from a thread on another context), given back as it was.
      if (const CUresult r = cuCtxPushCurrent(d.context); r != CUDA_SUCCESS) {
        throw std::runtime_error(driver_error(r, "cuCtxPushCurrent"));
      }
      const CUresult r = cuCtxSynchronize();
      CUcontext popped = nullptr;
      cuCtxPopCurrent(&popped);
      if (r != CUDA_SUCCESS) throw std::runtime_error(driver_error(r, "cuCtxSynchronize"));
      values = d.backend->flush();
    } catch (const std::exception& e) {
      failure = one_line(e.what());
    }
    try {
      d.backend->disable();
    } catch (const std::exception& e) {
      disable_failure = std::string("cuptiSassMetricsDisable failed: ") + one_line(e.what());
    }
  };
  {
    const Watched watched(p.correlation, p.key);
    if (g_lines->mode.helper) {
      std::thread(read).join();  // outside any CUPTI callback
    } else {
      read();
    }
    if (p.identity) set_kernel_tracing(true);
  }
  if (!disable_failure.empty()) {
    // The kernels may stay instrumented: enable no more, so later launches run (and are timed as) their own code.
    give_up_locked(Status::failed, disable_failure);
    if (failure.empty()) failure = disable_failure;
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
    if (lines.lines.empty()) {
      failure =
          "CUPTI returned " + std::to_string(values.size()) + " SASS values for the instrumented launch, all zero";
    } else {
      if (!d.missing.empty()) {
        lines.message += (lines.message.empty() ? "" : "; ") + ("not on " + d.backend->chip_name() + ": " + d.missing);
      }
      write_lines_locked(p.correlation, lines);
      write_line(encode(SourceStatusLine{p.correlation, Status::ok, one_line(lines.message)}));
    }
  }
  if (!failure.empty()) write_line(encode(SourceStatusLine{p.correlation, Status::failed, failure}));
  // The program's own time between the launch call's exit and the next launch is not the lines' cost.
  const std::uint64_t ns =
      g_lines->mode.at == ReadAt::exit ? monotonic_ns() - p.begin_ns : p.held_ns + (monotonic_ns() - read_begin);
  write_line(encode(InstrumentedLine{p.correlation, ns, p.identity}));
  return ns;
}

}  // namespace

std::uint64_t lines_end() {
  if (!t_began) return 0;
  t_began = false;
  std::lock_guard<std::mutex> lock(g_lines->mutex);
  if (g_lines->mode.at == ReadAt::next) return 0;  // read at the next launch's entry (lines_settle)
  return read_pending_locked();
}

bool lines_pending() { return g_pending.load(std::memory_order_acquire); }

std::uint64_t lines_settle() {
  if (g_lines == nullptr) return 0;
  std::lock_guard<std::mutex> lock(g_lines->mutex);
  return read_pending_locked();
}

}  // namespace gpuperf::record::inject
