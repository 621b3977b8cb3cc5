#include "profiler/record/inject/inject_pm.hpp"

#include <cuda.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iterator>
#include <memory>
#include <mutex>

#include "profiler/record/inject/inject_metrics.hpp"
#include "profiler/record/inject/inject_shared.hpp"
#include "profiler/record/inject/pm_sampler.hpp"
#include "profiler/record/pm_sampling.hpp"
#include "profiler/record/record_codec.hpp"

namespace gpuperf::record::inject {
namespace {

struct PmState {
  std::mutex mutex;  // the window's transitions: the program's threads launch and push concurrently
  std::unique_ptr<PmWindow> window;
  PmSampler sampler;
  bool started = false;  // sampling runs (setup and Start succeeded)
  CUcontext context = nullptr;
  std::uint32_t device = 0;
  std::uint64_t setup_ns = 0;
};
PmState* g_pm = nullptr;
std::atomic<bool> g_open{false};  // the window is open and sampling (launches are not range-profiled)
std::atomic<bool> g_done{false};  // the window is over (or never opens): the callbacks return at once
thread_local int t_depth = 0;     // launch callbacks open on this thread: a runtime launch nests a driver one

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

bool is_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const auto in = [cbid](const auto& list) {
    return std::find(std::begin(list), std::end(list), cbid) != std::end(list);
  };
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return in(kRuntimeKernelLaunches) || in(kRuntimeOtherLaunches);
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return in(kDriverKernelLaunches) || in(kDriverOtherLaunches);
  return false;
}

// Opens the window on `ctx`'s device (the calling thread's context when null; device 0 without one): ends a kept
// range-profiler session, sets PM sampling up and starts it (g_pm->mutex held).
void open_locked(CUcontext ctx) {
  if (ctx == nullptr) cuCtxGetCurrent(&ctx);
  g_pm->context = ctx;
  if (ctx != nullptr) cuptiGetDeviceId(ctx, &g_pm->device);
  end_session_for_pm_sampling();  // inject_metrics.hpp: the range profiler lets the counters go
  const std::uint64_t t0 = now_ns();
  std::string why =
      g_pm->sampler.setup(static_cast<int>(g_pm->device), config().pm_interval_ns, config().pm_buffer_bytes);
  if (why.empty()) {
    write_line(encode(PmMetricsLine{g_pm->sampler.metrics()}));
    g_pm->setup_ns = now_ns() - t0;
    why = g_pm->sampler.start();
  }
  if (!why.empty()) {
    write_line(encode(ErrorLine{"PM sampling did not start: " + why}));
    g_pm->sampler.disable();
    return;
  }
  g_pm->started = true;
  g_open.store(true);
}

// Closes it: the window's launches finish, sampling stops, then the one decode and the evaluation, written as s
// lines and the w line (g_pm->mutex held).
void close_locked() {
  g_open.store(false);
  if (!g_pm->started) return;
  g_pm->started = false;
  if (g_pm->context != nullptr && cuCtxPushCurrent(g_pm->context) == CUDA_SUCCESS) {
    cuCtxSynchronize();  // an error here is the program's, reported to it at its next call
    CUcontext popped = nullptr;
    cuCtxPopCurrent(&popped);
  }
  std::string why = g_pm->sampler.stop();
  PmWindowRecord w;
  w.device = g_pm->device;
  w.interval_ns = config().pm_interval_ns;
  w.start_ns = g_pm->sampler.start_ns();
  w.stop_ns = std::max(g_pm->sampler.stop_ns(), w.start_ns);
  w.setup_ns = g_pm->setup_ns;
  w.launches = g_pm->window->launches_inside();
  if (why.empty()) {
    why = g_pm->sampler.decode(
        config().pm_max_samples, [&](const PmSample& s) { write_line(encode(s)); }, w);
  }
  if (!why.empty()) write_line(encode(ErrorLine{"PM sampling: " + why}));
  write_line(encode(w));
  // With --metrics the range profiler takes the counters back for later launches: PM sampling lets them go. Without,
  // it stays enabled to the end (disabling it may finalize CUPTI, XLA's cupti_pm_sampler notes, and end the tracing).
  if (!config().metrics.empty()) g_pm->sampler.disable();
}

void act_locked(PmWindow::Action a, CUcontext ctx) {
  if (a == PmWindow::Action::open) open_locked(ctx);
  if (a == PmWindow::Action::close) close_locked();
  g_done.store(g_pm->window->is_done());
}

// The window is closed before a launch once it holds 90% of the samples one decode takes (the image holds
// pm_max_samples: the rest would be lost).
bool too_long_locked() {
  if (!g_pm->started) return false;
  std::uint64_t now = 0;
  if (cuptiGetTimestamp(&now) != CUPTI_SUCCESS) return false;
  return 10 * (now - g_pm->sampler.start_ns()) >= 9 * config().pm_max_samples * config().pm_interval_ns;
}

}  // namespace

bool init_pm(CUpti_SubscriberHandle subscriber) {
  const RecordConfig& c = config();
  if (!c.pm_sampling) return true;
  g_pm = new PmState;  // lives as long as the process
  g_pm->window = std::make_unique<PmWindow>(PmWindowSpec{c.pm_nvtx, c.pm_launch_skip, c.pm_launch_count});
  const CUptiResult r = enable_launch_callbacks(subscriber);
  if (r != CUPTI_SUCCESS) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    write_line(encode(
        ErrorLine{std::string("PM sampling is not recorded: cuptiEnableCallback: ") + (s != nullptr ? s : "?")}));
    delete g_pm;
    g_pm = nullptr;
    return false;
  }
  return true;
}

void pm_on_launch(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  if (g_pm == nullptr || g_done.load(std::memory_order_relaxed) || !is_launch(domain, cbid)) return;
  if (data->callbackSite == CUPTI_API_ENTER) {
    if (t_depth++ != 0) return;
    std::lock_guard<std::mutex> lock(g_pm->mutex);
    if (too_long_locked()) act_locked(g_pm->window->force_close(), nullptr);
    act_locked(g_pm->window->before_launch(), data->context);
  } else if (t_depth > 0 && --t_depth == 0) {
    std::lock_guard<std::mutex> lock(g_pm->mutex);
    act_locked(g_pm->window->after_launch(), nullptr);
  }
}

void pm_on_nvtx_push(const std::string& name, std::size_t depth) {
  if (g_pm == nullptr || g_done.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(g_pm->mutex);
  act_locked(g_pm->window->on_push(name, static_cast<std::uint64_t>(gettid()), depth), nullptr);
}

void pm_on_nvtx_pop(std::size_t depth) {
  if (g_pm == nullptr || g_done.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(g_pm->mutex);
  act_locked(g_pm->window->on_pop(static_cast<std::uint64_t>(gettid()), depth), nullptr);
}

bool pm_window_open() { return g_open.load(std::memory_order_relaxed); }

void end_pm_window() {
  if (g_pm == nullptr) return;
  std::lock_guard<std::mutex> lock(g_pm->mutex);
  act_locked(g_pm->window->force_close(), nullptr);
}

}  // namespace gpuperf::record::inject
