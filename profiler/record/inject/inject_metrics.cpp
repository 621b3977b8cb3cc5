#include "profiler/record/inject/inject_metrics.hpp"

#include <cuda.h>
#include <execinfo.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/perfworks_spelling.hpp"
#include "profiler/cupti/backend_module.hpp"
#include "profiler/cupti/monotonic_clock.hpp"
#include "profiler/cupti/range_backend.hpp"
#include "profiler/record/inject/driver_l2_flush.hpp"
#include "profiler/record/inject/inject_comm.hpp"
#include "profiler/record/inject/inject_guard.hpp"
#include "profiler/record/inject/inject_lines.hpp"
#include "profiler/record/inject/inject_pm.hpp"
#include "profiler/record/inject/inject_shared.hpp"
#include "profiler/record/inject/pass_groups.hpp"
#include "profiler/record/inject/profile_session.hpp"
#include "profiler/record/inject/session_events.hpp"
#include "profiler/record/launch_policy.hpp"
#include "profiler/record/launch_selection.hpp"
#include "profiler/record/record_codec.hpp"
#include "profiler/speed_of_light.hpp"

namespace gpuperf::record::inject {
namespace {

struct Context {
  std::unique_ptr<cupti::RangeProfilerBackend> backend;
  CUmodule module = nullptr;
  CUfunction flush = nullptr;
  CUdeviceptr buffer = 0;  // driver_flush_bytes(l2_bytes, discards)
  unsigned long long l2_bytes = 0;
  bool discards = true;
  std::string broken;  // set once profiling failed on this context: no further attempts
};

// Each context has one range profiler, and its auto range takes in every kernel the context runs between
// begin_session and end_session. So a profiled launch must be alone: a launch of another thread during it
// would land in its range, and a second profiled one would begin a session on a profiler already in one
// (4 threads launching, on an H100: "range profiler call outside begin_session/end_session" in every run
// and a SIGSEGV in 1 of 8). `gate` serializes them as ncu does a program's launches: a profiled launch
// holds it exclusively from its API call's entry to its exit, every other launch shared for its call.
// Writer-preferring, so a stream of launches from other threads cannot starve a profiled one.
struct State {
  std::mutex mutex;  // the fields below; never held while waiting for `gate`
  pthread_rwlock_t gate;
  const cupti::BackendFactory* factory = nullptr;
  std::vector<std::string> metrics;
  // The same set with the speed-of-light throughputs as TriageCompute metrics (the recorder plans both for the
  // default set): taken at the first context where the chip accepts them and they need fewer passes
  // (speed_of_light.hpp). Empty: `metrics` as they are.
  std::vector<std::string> triage;
  // --kernel-regex, --nvtx-include, --launch-skip, --launch-count in the program (launch_selection.hpp): a launch
  // they leave out is never profiled or instrumented. Null: every launch may be.
  std::unique_ptr<LaunchSelection> selection;
  unsigned long long per_identity = 3;
  // Profiled launches per process at most (0: no limit): each costs a kernel replay of several passes, so a
  // program of thousands of identities would otherwise pay for each one. Identities that come after it is
  // spent are left unprofiled, and a "B <budget>" line says so.
  unsigned long long budget = 1000;
  unsigned long long spent = 0;
  bool told_budget = false;
  // Milliseconds of profiling per process at most (0: no limit): a profiled launch holds the program inside
  // its launch call for the replay's passes plus the save and restore of the memory the kernel can reach, so
  // a program that keeps most of the GPU's memory allocated (XLA preallocates 75%) pays up to a second per
  // launch. Launches after it is spent are not profiled, and a "T <budget ms>" line says so.
  unsigned long long time_budget_ms = 60000;
  unsigned long long spent_ns = 0;
  bool told_time_budget = false;
  std::map<std::string, unsigned long long> profiled;  // identity key -> launches profiled so far
  std::map<std::string, std::vector<bool>> collected;  // identity key -> the groups its profiled launches collected
  std::map<std::string, unsigned> lost;                // identity key -> its profiled launches whose counters were
                                                       // lost and given back (retry_lost_locked)
  std::map<CUcontext, Context> contexts;
  // The session kept enabled between profiled launches (profile_session.hpp; GPUPERF_RECORD_PROFILE_KEEP=0: off).
  KeptSession session;
  // The metric set's groups, one a profiled launch of an identity (pass_groups.hpp, next_group): planned at the
  // first context, each a configuration of every context's back end. `split` groups at most
  // (GPUPERF_RECORD_PROFILE_GROUPS; 0: pass_groups.hpp's default_groups; 1: every launch collects every metric).
  std::size_t split = 0;
  bool planned = false;  // `groups` planned (none: no metric fits one pass, in a one-pass process)
  std::vector<std::vector<std::size_t>> groups;
  // An identity's first profiled launch takes the first group, not the kept session's (pass_groups.hpp,
  // next_group): the last group holds the speed-of-light throughputs, 2 metrics in 9 passes on GH100.
  bool first_for_new = false;
  // Kernel replay in a distributed process (launch_policy.hpp, replay_mode): unless --profile-replay kernel, a
  // rank of a distributed job (any process with --profile-replay one-pass) replays one pass a launch, its metrics
  // in one-pass groups (a "Y" line names those that need more and are not collected); a process that is not one
  // stops range profiling at its first communication kernel, which a "U communication" line says. Source lines
  // (one instrumented launch, nothing restored) are collected either way.
  ReplayChoice replay = ReplayChoice::automatic;  // --profile-replay
  bool distributed = false;
  bool one_pass = false;  // replay_mode's answer for this process before any communication
  std::atomic<bool> communication_seen{false};
  bool told_unreplayed = false;
  std::uint64_t end_ns = 0;  // spent ending kept sessions (in spent_ns too; told by the trace)
};

State* g_state = nullptr;
thread_local bool t_busy = false;       // inside our own profiling: our flush launch must not recurse
thread_local int t_depth = 0;           // launch callbacks open on this thread (a runtime launch nests a driver
                                        // one): the outermost takes the gate and decides, the inner ones pass
thread_local bool t_profiling = false;  // this thread's launch is being profiled (it holds the gate exclusively)
thread_local Context* t_context = nullptr;
thread_local std::uint32_t t_correlation = 0;
thread_local std::uint64_t t_profile_begin_ns = 0;       // when this thread's profiled launch took the gate
thread_local CUstream t_communication_stream = nullptr;  // this thread's communication launch, to mark its end
thread_local CUcontext t_communication_context = nullptr;
thread_local bool t_communication = false;
thread_local std::size_t t_group = 0;   // the metric group this thread's profiled launch collects
thread_local std::string t_key;         // its identity
thread_local bool t_restarted = false;  // its session was the kept one, restarted

// GPUPERF_RECORD_PROFILE_TRACE=1: each profiled launch's phases on stderr, to see where its time goes.
bool g_trace = false;
enum Phase { kSetup, kFlushL2, kBegin, kCall, kPasses, kDecode, kEvaluate, kEnd, kPhases };
constexpr const char* kPhaseNames[kPhases] = {"setup",  "flush_l2", "begin",    "call",
                                              "passes", "decode",   "evaluate", "end"};
thread_local std::uint64_t t_phase_end[kPhases] = {};
thread_local std::string t_symbol;
void mark(Phase p);

std::string driver_error(CUresult r, const char* call) {
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  return std::string(call) + ": " + (s != nullptr ? s : "unknown CUDA error");
}

void check(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(driver_error(r, call));
}

// Whether H lines describe the groups: a profiled launch then writes a Q line of its group's values, not an M.
bool grouped() { return g_state->one_pass || g_state->groups.size() > 1; }

// Plans the metric groups at the first context, by the passes CUPTI counts on a host-only back end of the same
// chip: one-pass groups in a one-pass process (a Y line names the metrics that fit none), else at most `split`
// groups; writes "H <group> <C-line index>..." for each when grouped().
void plan_groups(const std::string& chip) {
  g_state->planned = true;
  const auto spelled_otherwise = [](const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(),
                       [](const std::string& n) { return !perfworks_spellings(n).empty(); });
  };
  // A counter some chips spell otherwise is asked of this chip's host object.
  const bool respell = spelled_otherwise(g_state->metrics) || spelled_otherwise(g_state->triage);
  std::unique_ptr<cupti::RangeProfilerBackend> host;
  if (g_state->split != 1 || g_state->one_pass || !g_state->triage.empty() || respell)
    host = g_state->factory->open_host(chip);
  std::map<std::vector<std::string>, std::size_t> counted;  // each list's passes, counted once
  const PassCount passes = [&](const std::vector<std::string>& m) {
    const auto it = counted.find(m);
    return it != counted.end() ? it->second : counted[m] = host->add_configuration(m);
  };
  const AcceptsMetric accepts = [&](const std::string& m) {
    try {
      passes({m});
      return true;
    } catch (const std::exception&) {  // CUPTI refuses the name on this chip
      return false;
    }
  };
  // The chip's own spelling of each counter (GB202's dram__bytes_op_read.sum): the C line names it, and the
  // recorder maps it back to its metric (recorded_plan).
  if (respell) {
    for (std::string& m : g_state->metrics) m = chip_spelling(m, accepts);
    for (std::string& m : g_state->triage) m = chip_spelling(m, accepts);
  }
  if (!g_state->triage.empty())
    g_state->metrics = choose_speed_of_light(g_state->metrics, g_state->triage, accepts, passes);
  // The metrics line, once the chip has chosen the names: every later line's values follow its order.
  write_line(encode(MetricsLine{g_state->metrics}));
  if (g_state->one_pass) {
    SinglePassGroups packed = pack_single_pass(g_state->metrics, passes);
    // The largest group first: an identity launched once collects the most it can.
    std::stable_sort(packed.groups.begin(), packed.groups.end(),
                     [](const auto& a, const auto& b) { return a.size() > b.size(); });
    g_state->groups = std::move(packed.groups);
    write_line(encode(OnePassLine{packed.unfit}));
    // Every group needs a launch of its own: an identity's counters are whole after that many.
    g_state->per_identity = std::max<unsigned long long>(g_state->per_identity, g_state->groups.size());
  } else {
    const std::size_t split =
        g_state->split > 0 ? g_state->split : default_groups(g_state->metrics, g_state->per_identity, passes);
    g_state->groups = split_passes(g_state->metrics, split, passes);
    g_state->first_for_new = last_group_needs_passes_alone(g_state->groups, g_state->metrics, passes);
  }
  if (!grouped()) return;
  for (std::size_t g = 0; g < g_state->groups.size(); ++g) {
    write_line(encode(GroupLine{g, g_state->groups[g]}));
  }
}

// Adds one configuration per metric group to a context's back end (planning them at the first).
void add_groups(cupti::RangeProfilerBackend& backend) {
  if (!g_state->planned) plan_groups(backend.chip_name());
  for (const auto& group : g_state->groups) {
    std::vector<std::string> names;
    for (std::size_t i : group) names.push_back(g_state->metrics[i]);
    backend.add_configuration(names);
  }
}

Context& context_for(CUcontext ctx) {
  Context& c = g_state->contexts[ctx];
  if (c.backend || !c.broken.empty()) return c;
  std::uint32_t device = 0;
  if (cuptiGetDeviceId(ctx, &device) != CUPTI_SUCCESS) throw std::runtime_error("cuptiGetDeviceId failed");
  c.backend = g_state->factory->open_device(static_cast<int>(device), ctx);
  add_groups(*c.backend);
  CUdevice dev = 0;
  check(cuCtxGetDevice(&dev), "cuCtxGetDevice");
  int l2 = 0, major = 0;
  check(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev), "cuDeviceGetAttribute");
  check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute");
  const DriverFlushCode code = driver_flush_code(major);
  check(cuModuleLoadData(&c.module, code.ptx), "cuModuleLoadData (L2 flush)");
  check(cuModuleGetFunction(&c.flush, c.module, kFlushKernelName), "cuModuleGetFunction (L2 flush)");
  c.l2_bytes = static_cast<unsigned long long>(l2);
  c.discards = code.discards;
  check(cuMemAlloc(&c.buffer, driver_flush_bytes(c.l2_bytes, c.discards)), "cuMemAlloc (L2 flush buffer)");
  return c;
}

void flush_l2(Context& c) {
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  check(enqueue_driver_flush(c.flush, c.buffer, c.l2_bytes, c.discards), "cuLaunchKernel (L2 flush)");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
}

// What a launch call says about its launch: the grid and block (with the symbol and NVTX path, the kernel's
// identity as `record` stores it) and the stream (to see whether it is being captured into a graph).
struct LaunchInfo {
  bool known = false;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  CUstream stream = nullptr;
};

// __cudaLaunchKernel (CUDA 13's <<<>>>) has no params struct in the generated headers: it takes what
// cudaLaunchKernel takes, the kernel as a cudaKernel_t (crt/device_functions.h).
struct RuntimeLaunchKernelV13Params {
  const void* kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
};

template <typename P>
LaunchInfo runtime_dims(const void* params) {
  const auto* p = static_cast<const P*>(params);
  return {true, {p->gridDim.x, p->gridDim.y, p->gridDim.z}, {p->blockDim.x, p->blockDim.y, p->blockDim.z}, p->stream};
}
template <typename P>
LaunchInfo driver_dims(const void* params) {
  const auto* p = static_cast<const P*>(params);
  return {true, {p->gridDimX, p->gridDimY, p->gridDimZ}, {p->blockDimX, p->blockDimY, p->blockDimZ}, p->hStream};
}

LaunchInfo launch_info(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params) {
  if (params == nullptr) return {};
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (cbid) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: return runtime_dims<cudaLaunchKernel_v7000_params>(params);
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        return runtime_dims<cudaLaunchKernel_ptsz_v7000_params>(params);
      case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
        return runtime_dims<RuntimeLaunchKernelV13Params>(params);
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
      case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        // The _ptsz params have the same layout.
        const cudaLaunchConfig_t* c = static_cast<const cudaLaunchKernelExC_v11060_params*>(params)->config;
        if (c == nullptr) return {};
        return {
            true, {c->gridDim.x, c->gridDim.y, c->gridDim.z}, {c->blockDim.x, c->blockDim.y, c->blockDim.z}, c->stream};
      }
      default: return {};
    }
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: return driver_dims<cuLaunchKernel_params>(params);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: return driver_dims<cuLaunchKernel_ptsz_params>(params);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const CUlaunchConfig* c = static_cast<const cuLaunchKernelEx_params*>(params)->config;
      if (c == nullptr) return {};
      return {true, {c->gridDimX, c->gridDimY, c->gridDimZ}, {c->blockDimX, c->blockDimY, c->blockDimZ}, c->hStream};
    }
    default: return {};
  }
}

// The identity a launch is profiled under: what `record` stores it as (aggregate.hpp), with the NVTX path
// by its id in this process.
std::string identity_key(const CUpti_CallbackData* data, const LaunchInfo& info) {
  std::string key = data->symbolName;
  for (unsigned v : {info.grid[0], info.grid[1], info.grid[2], info.block[0], info.block[1], info.block[2]}) {
    key += ' ';
    key += std::to_string(v);
  }
  key += ' ';
  key += std::to_string(current_range_id());
  return key;
}

// Whether the launch goes into a graph being captured rather than to the GPU: then there is no kernel to
// profile now, and the synchronisations a profiled launch needs would invalidate the capture (and once
// marked the context broken for every later launch). An answer CUDA refuses to give counts as captured.
bool captured(CUstream stream) {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS) return true;
  return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool single_kernel_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const auto in = [cbid](const auto& list) {
    return std::find(std::begin(list), std::end(list), cbid) != std::end(list);
  };
  return domain == CUPTI_CB_DOMAIN_RUNTIME_API ? in(kRuntimeKernelLaunches) : in(kDriverKernelLaunches);
}

// Whether kernel replay may run in this process now (State::replay); says once why not (g_state->mutex
// held).
bool replay_allowed_locked() {
  if (g_state->planned && g_state->groups.empty()) return false;  // no metric fits one pass (the Y line says so)
  if (replay_mode(g_state->replay, g_state->distributed, g_state->communication_seen.load(std::memory_order_relaxed)) !=
      ReplayMode::none)
    return true;
  if (!g_state->told_unreplayed) {
    g_state->told_unreplayed = true;
    write_line(encode(UnreplayedLine{"communication"}));
  }
  return false;
}

// The budgets of profiled launches and of profiling time, and an identity's own share (g_state->mutex held):
// what range-profiled and instrumented launches both ask.
bool launch_budget_spent() { return g_state->budget > 0 && g_state->spent >= g_state->budget; }
bool time_budget_spent() {
  return g_state->time_budget_ms > 0 && g_state->spent_ns >= g_state->time_budget_ms * 1000000ull;
}
unsigned long long profiled_launches(const std::string& key) {
  const auto it = g_state->profiled.find(key);
  return it == g_state->profiled.end() ? 0 : it->second;
}
bool identity_profiled_enough(const std::string& key) {
  const auto it = g_state->profiled.find(key);
  return it != g_state->profiled.end() && it->second >= g_state->per_identity;
}
bool context_broken(CUcontext context) {
  const auto ctx = g_state->contexts.find(context);
  return ctx != g_state->contexts.end() && !ctx->second.broken.empty();
}

// Whether the launch's identity still has launches to profile, within the budget, on a context where
// profiling has not failed (g_state->mutex held). Says once when the budget is spent.
bool wanted_locked(const CUpti_CallbackData* data, const std::string& key) {
  if (profiling_stopped()) return false;  // the watchdog gave a launch up (inject_guard.hpp)
  if (!replay_allowed_locked()) return false;
  if (context_broken(data->context) || identity_profiled_enough(key)) return false;
  if (launch_budget_spent()) {
    if (!g_state->told_budget) {
      g_state->told_budget = true;
      write_line(encode(BudgetLine{g_state->budget}));
    }
    return false;
  }
  if (time_budget_spent()) {
    if (!g_state->told_time_budget) {
      g_state->told_time_budget = true;
      write_line(encode(TimeBudgetLine{g_state->time_budget_ms}));
    }
    return false;
  }
  // Past half the time budget, an identity's first launch only (launch_policy.hpp).
  return time_budget_allows(g_state->spent_ns, g_state->time_budget_ms, profiled_launches(key) > 0);
}

void end_session_locked(SessionEnd why, bool in_capture);

// Whether the selection admits the launch (every one without a selection); the first launch of a kernel it leaves
// out writes "e <symbol>": traced, never profiled.
bool launch_selected(const CUpti_CallbackData* data) {
  LaunchSelection* s = g_state->selection.get();
  if (s == nullptr || !s->active() || data->symbolName == nullptr) return true;
  std::lock_guard<std::mutex> lock(g_state->mutex);
  const std::string symbol = data->symbolName;
  if (s->admit(symbol, current_range_id(), current_range_path)) return true;
  if (s->first_exclusion(symbol)) write_line(encode(ExcludedLine{symbol}));
  return false;
}

// Source lines (inject_lines.hpp): the first launch after an identity's range-profiled ones (or of one whose
// context cannot be range-profiled) is instrumented, within the same budgets of launches and time, holding
// the gate exclusively. False: the launch is not (the caller takes the gate shared).
bool enter_lines(const CUpti_CallbackData* data, const std::string& key, CUstream stream) {
  const auto ready_locked = [&] {
    const bool ranged = range_profiling_over(identity_profiled_enough(key), profiled_launches(key), g_state->spent_ns,
                                             g_state->time_budget_ms) ||
                        context_broken(data->context) ||
                        !replay_allowed_locked();  // not range-profiled here: instrumented at once
    return ranged && lines_wanted(data, key) && !launch_budget_spent() && !time_budget_spent();
  };
  {
    std::lock_guard<std::mutex> lock(g_state->mutex);
    if (!ready_locked()) return false;
  }
  if (captured(stream)) return false;
  pthread_rwlock_wrlock(&g_state->gate);
  std::lock_guard<std::mutex> lock(g_state->mutex);
  // The instrumented launch is not range-profiled: a kept session ends before it, as before any other launch
  // (counted apart, so the trace says how many sessions the instrumented launches ended).
  end_session_locked(SessionEnd::source_lines, false);
  // Instrumenting waits for the context, so not while a collective still runs (inject_comm.hpp).
  if (ready_locked() && communication_idle(data->context) && lines_begin(data, key)) ++g_state->spent;
  return true;  // the gate is held exclusively either way; leave() lets it go
}

// Ends the kept session before a launch that runs unprofiled (`why` other_launch: not when the launch goes into a
// capture), a capture's beginning, a context's end or the exit (g_state->mutex held). Its time is profiling's
// (--profile-seconds), as the disable in each profiled launch was before sessions were kept.
void end_session_locked(SessionEnd why, bool in_capture) {
  if (!g_state->session.kept()) return;
  const std::uint64_t t0 = monotonic_ns();
  std::string error;
  if (why == SessionEnd::other_launch) {
    g_state->session.on_launch(false, in_capture, &error);
  } else {
    error = g_state->session.end(why);
  }
  const std::uint64_t ns = monotonic_ns() - t0;
  g_state->spent_ns += ns;
  g_state->end_ns += ns;
  if (!error.empty()) write_line(encode(ErrorLine{"hardware metrics: ending the profiler's session failed: " + error}));
}

// The outermost callback of a launch: takes the gate, shared or (to profile it) exclusively, and begins the
// launch's range. Only single-kernel launches are profiled; cooperative and graph launches only wait, and
// so does a launch captured into a graph (its replays are traced like any launch).
void enter(bool profilable, const CUpti_CallbackData* data, const LaunchInfo& info) {
  if (lines_pending()) {  // an instrumented launch's counters, read once its call has returned (inject_lines.hpp)
    pthread_rwlock_wrlock(&g_state->gate);
    const std::uint64_t ns = lines_settle();
    {
      std::lock_guard<std::mutex> lock(g_state->mutex);
      g_state->spent_ns += ns;
      if (g_state->contexts.size() <= 1) flush_records_after_exclusive_launch();  // inject_shared.hpp
    }
    pthread_rwlock_unlock(&g_state->gate);
  }
  // Communication kernels (never profiled) and a process whose profiling was given up: the gate, shared.
  // Counts the launch (--launch-skip, --launch-count); inside a PM-sampling window nothing is profiled.
  const bool selected = launch_selected(data) && !pm_window_open();
  profilable = launch_may_be_profiled(profilable, info.known, data->symbolName) && data->context != nullptr && selected;
  const bool candidate = profilable;
  t_communication = info.known && communication_launch(data->symbolName);  // an event after it (inject_comm.hpp)
  if (t_communication) g_state->communication_seen.store(true, std::memory_order_relaxed);
  t_communication_stream = info.stream;
  t_communication_context = data->context;
  std::string key;
  if (profilable) {
    key = identity_key(data, info);
    std::lock_guard<std::mutex> lock(g_state->mutex);
    profilable = wanted_locked(data, key);
  }
  // Captured: never profiled, and a kept session is left alone (ending it inside the capture would break it).
  const bool in_capture = (profilable || g_state->session.kept()) && info.known && captured(info.stream);
  if (in_capture) profilable = false;
  if (!profilable) {
    if (candidate && enter_lines(data, key, info.stream)) return;
    pthread_rwlock_rdlock(&g_state->gate);
    if (g_state->session.kept()) {  // no profiled launch runs now: the gate is shared
      std::lock_guard<std::mutex> lock(g_state->mutex);
      // Kept since the check above, maybe: ask about the capture again.
      end_session_locked(SessionEnd::other_launch, in_capture || (info.known && captured(info.stream)));
    }
    return;
  }
  pthread_rwlock_wrlock(&g_state->gate);
  const std::uint64_t begin = monotonic_ns();  // the profiling's cost, not the wait for other launches
  std::lock_guard<std::mutex> lock(g_state->mutex);
  // Not profiled after all: the launch runs as any other, so a kept session ends before it.
  const auto unprofiled = [] { end_session_locked(SessionEnd::other_launch, false); };
  if (!wanted_locked(data, key)) return unprofiled();  // another thread profiled its last launch meanwhile
  Context* c = nullptr;
  try {
    c = &context_for(data->context);
    if (!c->broken.empty() || g_state->groups.empty()) return unprofiled();
    mark(kSetup);
    if (!communication_idle(data->context)) {  // a collective still running: do not synchronize on it
      write_line(encode(CommunicationLine{data->correlationId, communication_wait_ms()}));
      return unprofiled();
    }
    guard_begin(data->correlationId, key);  // watched, and the periodic flush keeps off CUPTI, until guard_end
    t_busy = true;
    flush_l2(*c);
    t_busy = false;
    mark(kFlushL2);
    // One auto range around this launch; kernel replay runs every pass of its group inside the launch call.
    // The session kept enabled since the last profiled launch is restarted when that launch collected the same
    // group (0.2 ms against 150 ms to begin one on an H100); profile_session.hpp has the rules that end it.
    std::vector<bool>& collected = g_state->collected[key];
    collected.resize(g_state->groups.size(), false);
    t_group = next_group(collected, g_state->session.kept_configuration(data->context), g_state->first_for_new);
    t_restarted = g_state->session.open(data->context, *c->backend, t_group);
    c->backend->start_pass();
    mark(kBegin);
  } catch (const std::exception& e) {
    t_busy = false;
    guard_end();
    if (c != nullptr) c->broken = e.what();
    if (c != nullptr && c->backend) g_state->session.forget(c->backend.get());
    if (c != nullptr) c->backend.reset();
    write_line(encode(ErrorLine{std::string("hardware metrics are not recorded on this context: ") + e.what()}));
    return;
  }
  ++g_state->profiled[key];
  ++g_state->spent;
  t_key = key;
  t_profiling = true;
  t_profile_begin_ns = begin;
  if (g_trace) t_symbol = data->symbolName;
  t_context = c;
  t_correlation = data->correlationId;
}

// A profiled launch whose counters CUPTI failed to give (g_state->mutex held): its group goes back to its identity
// for a later launch (pass_groups.hpp, give_back_group), once an identity, and an "x" line says so. False: the
// loss stands (the caller writes an X line). A failure that lasts (DDP ranks keeping sessions with source lines,
// docs/record-ends.md) costs each identity one launch more, not more.
bool retry_lost_locked(const std::string& why) {
  constexpr unsigned kMostLost = 1;
  std::vector<bool>& collected = g_state->collected[t_key];
  if (!give_back_group(collected, t_group, g_state->lost[t_key], kMostLost)) return false;
  if (auto it = g_state->profiled.find(t_key); it != g_state->profiled.end() && it->second > 0) --it->second;
  write_line(encode(LostCountersLine{t_correlation, t_group, why}));
  return true;
}

// Ends the launch's range, if it had one (g_state->mutex held).
void end_range_locked() {
  Context& c = *t_context;
  mark(kCall);
  try {
    while (!c.backend->end_pass()) c.backend->start_pass();  // kernel replay: done after one
    mark(kPasses);
    c.backend->decode();
    mark(kDecode);
    const auto ranges = c.backend->evaluate();
    mark(kEvaluate);
    g_state->session.done();  // kept enabled for the next profiled launch
    mark(kEnd);
    if (ranges.size() != 1) throw std::runtime_error("CUPTI returned " + std::to_string(ranges.size()) + " ranges");
    if (grouped()) {  // the values of its group's metrics (H line)
      write_line(encode(GroupValuesLine{t_correlation, t_group, ranges[0].values}));
    } else {
      write_line(encode(ValuesLine{t_correlation, ranges[0].values}));
    }
  } catch (const std::exception& e) {
    g_state->session.forget(c.backend.get());
    try {
      c.backend->end_session();
    } catch (const std::exception&) {  // the failure being reported is the one that matters
    }
    if (!retry_lost_locked(e.what()))
      write_line(encode(ErrorLine{std::string("hardware metrics of a launch failed: ") + e.what()}));
  }
}

// The outermost callback's exit: the launch call has returned (kernel replay ran inside it).
void leave() {
  if (const std::uint64_t ns = lines_end(); ns > 0) {  // an instrumented launch (source lines)
    std::lock_guard<std::mutex> lock(g_state->mutex);
    g_state->spent_ns += ns;
  }
  if (t_profiling) {
    t_profiling = false;
    std::lock_guard<std::mutex> lock(g_state->mutex);
    end_range_locked();
    if (g_state->contexts.size() == 1) flush_records_after_exclusive_launch();  // inject_shared.hpp
    guard_end();
    // The wall time this launch's profiling held the program: its L2 flush, the replay inside the launch call
    // (passes, memory saved and restored) and the evaluation.
    const std::uint64_t ns = monotonic_ns() - t_profile_begin_ns;
    g_state->spent_ns += ns;
    write_line(encode(ProfileTimeLine{t_correlation, ns}));
    if (g_trace) {
      std::string line = "gpuperf-profile " + t_symbol.substr(0, 80) + ":";
      std::uint64_t last = t_profile_begin_ns;
      char part[48];
      for (int p = 0; p < kPhases; ++p) {
        if (t_phase_end[p] < last) continue;  // not reached (a failure)
        std::snprintf(part, sizeof part, " %s %.1f", kPhaseNames[p], static_cast<double>(t_phase_end[p] - last) * 1e-6);
        line += part;
        last = t_phase_end[p];
      }
      std::fprintf(stderr, "%s ms (group %zu, %s)\n", line.c_str(), t_group, t_restarted ? "restarted" : "begun");
    }
  }
  if (t_communication) {
    t_communication = false;
    communication_launched(t_communication_context, t_communication_stream);
  }
  pthread_rwlock_unlock(&g_state->gate);
}

// With the trace on: a crash's native stack on stderr, to tell a fault in CUPTI from one in the program (the
// program's own handler, if it installs one later, replaces this one).
void on_fault(int sig) {
  void* frames[64];
  const int n = backtrace(frames, 64);
  static const char head[] = "gpuperf-profile: fatal signal, native stack:\n";
  (void)!write(2, head, sizeof head - 1);
  backtrace_symbols_fd(frames, n, 2);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void mark(Phase p) {
  if (g_trace) t_phase_end[p] = monotonic_ns();
}

// GPUPERF_RECORD_PROFILE_KEEP=0 ends each session after its launch; GPUPERF_RECORD_PROFILE_GROUPS=N splits the
// metric set into N groups at most (default 0: pass_groups.hpp's default_groups).
void configure_session() {
  const std::optional<bool> keep = config().profile_keep;
  // Not in a rank that instruments source lines (launch_policy.hpp, keep_sessions_by_default; docs/record-ends.md):
  // with --no-source-lines a rank keeps them. GPUPERF_RECORD_PROFILE_KEEP=1 keeps them anyway, =0 never.
  const bool keep_default =
      keep_sessions_by_default(g_state->one_pass ? ReplayMode::one_pass : ReplayMode::every_pass, source_lines_asked());
  g_state->session.set_keep(keep.value_or(keep_default));
  g_state->split = g_state->per_identity <= 1 ? 1 : 0;
  if (config().profile_groups > 0) g_state->split = static_cast<std::size_t>(config().profile_groups);  // 0: default
}

// A capture begins or a context goes: waits for a profiled launch in flight (the gate), then ends the session.
void end_kept_session(SessionEnd why) {
  if (!g_state->session.kept()) return;
  pthread_rwlock_rdlock(&g_state->gate);
  {
    std::lock_guard<std::mutex> lock(g_state->mutex);
    end_session_locked(why, false);
  }
  pthread_rwlock_unlock(&g_state->gate);
}

}  // namespace

void end_session_for_pm_sampling() {
  if (g_state != nullptr) end_kept_session(SessionEnd::other_launch);
}

bool is_own_kernel(const char* name) { return name != nullptr && std::strcmp(name, kFlushKernelName) == 0; }

void end_metrics_session() {
  if (g_state == nullptr) return;
  std::lock_guard<std::mutex> lock(g_state->mutex);  // a launch in flight has an open session, not a kept one
  end_session_locked(SessionEnd::process_exit, false);
  if (g_trace) {
    std::fprintf(stderr, "gpuperf-profile sessions: %.1f ms ending kept ones; %llu begun, %llu restarted; ended by",
                 static_cast<double>(g_state->end_ns) * 1e-6, (unsigned long long)g_state->session.begins(),
                 (unsigned long long)g_state->session.restarts());
    for (int w = 0; w < static_cast<int>(SessionEnd::kEnds); ++w) {
      std::fprintf(stderr, " %s %llu", to_string(static_cast<SessionEnd>(w)),
                   (unsigned long long)g_state->session.ends(static_cast<SessionEnd>(w)));
    }
    std::fprintf(stderr, "\n");
  }
}

bool init_metrics(CUpti_SubscriberHandle subscriber) {
  const RecordConfig& c = config();
  if (c.metrics.empty()) return true;
  const std::string& module = c.cupti_module;  // gpuperf found it (find_backend_module)
  const cupti::OpenedBackend opened = !module.empty() ? cupti::open_backend_module(module)
                                                      : cupti::OpenedBackend{nullptr, "no CUPTI module configured"};
  if (opened.factory == nullptr) {
    write_line(encode(ErrorLine{"hardware metrics are not recorded: " + opened.error}));
    return false;
  }
  g_state = new State;  // lives as long as the process, and so does its gate
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&g_state->gate, &attr);
  pthread_rwlockattr_destroy(&attr);
  g_state->factory = opened.factory;
  g_state->metrics = c.metrics;
  g_state->triage = c.metrics_triage;
  g_state->per_identity = c.profile_launches;
  g_state->budget = c.profile_budget;
  if (c.profile_trace) {
    g_trace = true;
    std::signal(SIGSEGV, on_fault);
    std::signal(SIGBUS, on_fault);
    std::signal(SIGABRT, on_fault);
  }
  g_state->time_budget_ms = c.profile_ms;
  try {
    g_state->selection =
        std::make_unique<LaunchSelection>(c.kernel_regex, c.nvtx_include, c.launch_skip, c.launch_count, c.kernel_name);
  } catch (const std::exception& e) {  // the recorder checked the patterns with the same class: not expected
    write_line(encode(ErrorLine{std::string("the launch selection is not applied in the program: ") + e.what()}));
  }
  g_state->replay = c.replay;
  g_state->distributed = distributed_job([](const char* variable) { return std::getenv(variable); });
  g_state->one_pass = replay_mode(g_state->replay, g_state->distributed, false) == ReplayMode::one_pass;
  configure_session();
  init_guard(c.communication_kernels, c.profile_watchdog_ms);
  init_communication_wait();
  // Callbacks for the launch APIs alone (every other API call runs without one): single-kernel launches
  // are profiled, the others pass the gate.
  CUptiResult r = enable_launch_callbacks(subscriber);
  // End a kept session (session_events.hpp).
  enable_callbacks(subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, kRuntimeCaptureBegins, r);
  enable_callbacks(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverCaptureBegins, r);
  enable_callbacks(subscriber, CUPTI_CB_DOMAIN_DRIVER_API, kDriverContextEnds, r);
  if (r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    write_line(encode(
        ErrorLine{std::string("hardware metrics are not recorded: cuptiEnableCallback: ") + (s != nullptr ? s : "?")}));
    return false;
  }
  init_lines(subscriber, opened.sass);  // source lines (inject_lines.hpp), with GPUPERF_RECORD_SOURCE_LINES=1
  return true;
}

void on_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  // Only the launch APIs and the calls of session_events.hpp are enabled (init_metrics).
  if (g_state == nullptr || t_busy) return;
  if (SessionEnd why; session_event(domain, cbid, why)) {
    if (data->callbackSite == CUPTI_API_ENTER) end_kept_session(why);
    return;
  }
  if (data->callbackSite == CUPTI_API_ENTER) {
    if (t_depth++ == 0) {
      const bool single = single_kernel_launch(domain, cbid);
      enter(single, data, single ? launch_info(domain, cbid, data->functionParams) : LaunchInfo{});
    }
  } else if (t_depth > 0 && --t_depth == 0) {
    leave();
  }
}

}  // namespace gpuperf::record::inject
