// libgpuperf_inject.so: loaded into an unmodified CUDA program by the CUDA driver (CUDA_INJECTION64_PATH,
// set by `gpuperf record`), which calls InitializeInjection() at the program's first CUDA call. From then
// on every kernel execution (CUPTI activity, CONCURRENT_KERNEL) is written to the process's record file
// (profiler/record/recorder/record_file.hpp), with the NVTX range path the launching thread was in: each NVTX push
// pushes a CUPTI external correlation id naming the whole path, and the launch APIs' activity records tie
// it to the kernel's correlation id, so no callback runs per launch. The pattern follows NVIDIA's
// cupti_trace_injection sample.
//
// Teardown: a recorded program must end exactly as it would without this library. Everything the library
// keeps lives in objects that are never destroyed (State, the NVTX stacks, the ActivityApi), because its last
// flush runs from an exit handler, and the program's and CUPTI's exit handlers and static destructors, and
// threads that exit or call exit(), come in an order no library controls. A function-local std::string that
// cached the last kernel name was destroyed by the exit sequence before that flush wrote to it again: the
// double free and SIGSEGV seen at the exit of PyTorch and JAX programs under `gpuperf record`.
//
// What it costs the program: CUPTI's activity tracing of kernels and launch calls and one callback per
// NVTX push/pop; records are written by CUPTI's worker thread, a buffer (1 MB) at a time, about 0.15 us a
// record on an H100 machine (bench/record/record_overhead.py measures what recording costs a program).
//
// Its own time: the library times its own code per buffer (writing, allocating) and per NVTX callback, never
// per launch, with the monotonic clock (vDSO, tens of ns a read), and writes the sums as O lines at the end
// (record_file.hpp), split by thread: the program's threads (NVTX callbacks, the exit's last flush) against
// CUPTI's worker thread and its own flush thread, which run beside the program. `record` prints them, and
// bench/record/record_overhead.py sets them against the loop time, free of the noise between processes.
//
// Bounded loss under SIGKILL: a buffer reaches the file when it fills or when it is flushed, and SIGKILL
// leaves no chance to flush. So a thread of ours asks CUPTI every GPUPERF_RECORD_FLUSH_MS (default 1000 ms)
// for its buffers whose records are complete (cuptiActivityFlushAll(0): not forced, so no record of a
// kernel still running is handed over half-filled); each buffer written is followed by an F line with the
// time, and fflush puts it in the kernel's page cache, which outlives the process. A SIGKILL then loses at
// most the records of the last period (and of kernels still running). cuptiActivityFlushPeriod was not
// enough: its periodic flush returns only full buffers, so a slow program would keep up to 1 MB unwritten.
#include <cupti.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "profiler/cupti/activity_api_linked.hpp"
#include "profiler/cupti/monotonic_clock.hpp"
#include "profiler/record/inject/flush_guard.hpp"
#include "profiler/record/inject/inject_identity.hpp"
#include "profiler/record/inject/inject_lines.hpp"
#include "profiler/record/inject/inject_metrics.hpp"
#include "profiler/record/inject/inject_pm.hpp"
#include "profiler/record/inject/inject_shared.hpp"
#include "profiler/record/inject/signal_finish.hpp"
#include "profiler/record/record_codec.hpp"

namespace {

// CUPTI hands a buffer back when it is full (or at the final flush): 1 MB, about 4,000 launches with their
// API records, keeps the writing in CUPTI's worker thread while the program runs and what a SIGKILL can
// take small; the exit flush has at most one buffer left.
constexpr std::size_t kBufferBytes = 1u << 20;

struct State {
  std::mutex mutex;  // guards everything below
  std::FILE* out = nullptr;
  std::unordered_map<std::string, std::uint64_t> names;
  std::unordered_map<std::string, std::uint64_t> ranges;
  // NVTX strings registered by the program (nvtxDomainRegisterStringA): handle -> text. XLA names its
  // ranges this way.
  std::unordered_map<const void*, std::string> registered;
  bool finished = false;
  bool forked_child = false;  // a fork() of the recorded process: the file and CUPTI are the parent's
  // The last kernel name interned: CUPTI hands the same name pointer for every launch of a function, so it is
  // checked first, with a string compare (a pointer may in principle be reused).
  const char* last_name_pointer = nullptr;
  std::string last_name;
  std::uint64_t last_name_id = 0;
  std::string line;  // the record being written: one buffer for every record, grown once
};

State& state() {
  static State* s = new State;  // never destroyed: atexit and signal handlers may run after statics die
  return *s;
}

std::atomic<bool> g_started{false};

// GPUPERF_RECORD_OVERHEAD_AB=PARTS (bench/record/record_overhead_ab.py): the program may pause parts of gpuperf's own
// work in its process, between the loops it times, with gpuperf_record_overhead_ours(0) and resume them with
// (1), so that what recording adds above CUPTI is measured within one process, free of the levels that move
// between processes. PARTS is "all" or a comma list of: "nvtx" (an NVTX push or pop then only pushes or pops
// a plain external id, as the bare tracer + launch API does, tests/record/bare_tracer.cpp), "write" (a
// completed buffer's records are counted, not written: the record file lacks them), "flush" (the periodic
// flush is skipped). With all three paused the library does what that tracer does; CUPTI is asked the same.
enum Part : int { kPartNvtx = 1, kPartWrite = 2, kPartFlush = 4, kPartsAll = 7 };
std::atomic<bool> g_ab_allowed{false};
int g_ab_parts = 0;                      // the parts gpuperf_record_overhead_ours(0) pauses
std::atomic<int> g_ours_paused{0};       // the parts paused now
thread_local unsigned t_bare_depth = 0;  // external ids pushed while paused and not yet popped, this thread

bool paused(Part part) { return (g_ours_paused.load(std::memory_order_relaxed) & part) != 0; }

// PARTS of GPUPERF_RECORD_OVERHEAD_AB as bits; -1 for a word that names no part.
int parse_parts(const std::string& text) {
  if (text == "all" || text == "1") return kPartsAll;
  int parts = 0;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = std::min(text.find(',', begin), text.size());
    const std::string word = text.substr(begin, end - begin);
    if (word == "nvtx") {
      parts |= kPartNvtx;
    } else if (word == "write") {
      parts |= kPartWrite;
    } else if (word == "flush") {
      parts |= kPartFlush;
    } else {
      return -1;
    }
    begin = end + 1;
  }
  return parts;
}

// The library's own time (O lines). Relaxed atomics: each is only summed, and read once at the end.
// nvtx: our NVTX callback's own code; external: CUPTI's push/pop of the external id inside it (CUPTI's cost,
// which the bare tracer + launch API pays too), timed apart so that the two are not mixed; flush: CUPTI's part
// of the periodic flush (the call less the writing it did through on_buffer), its items the longest call in
// ns. external and flush are CUPTI's work, asked for by us, and `record` says them apart from ours.
enum class Work { nvtx, write, request, external, flush };
enum class Thread { program, cupti, gpuperf };
constexpr const char* kWorkNames[] = {"nvtx", "write", "request", "external", "flush"};
constexpr int kWorks = 5;
constexpr const char* kThreadNames[] = {"program", "cupti", "gpuperf"};
struct Account {
  std::atomic<std::uint64_t> calls{0}, items{0}, ns{0};
};
Account g_own[kWorks][3];  // [Work][Thread]; trivially destructible members, never torn down before the last flush

thread_local bool t_flush_thread = false;  // the library's flush thread
thread_local bool t_finishing = false;     // inside finish() (the exit's last flush) on this thread
thread_local pid_t t_tid = 0;
std::atomic<pid_t> g_cupti_tid{0};  // the thread that hands CUPTI's completed buffers over on its own

pid_t own_tid() {
  if (t_tid == 0) t_tid = static_cast<pid_t>(gettid());
  return t_tid;
}

using gpuperf::monotonic_ns;

void account(Work work, Thread thread, std::uint64_t items, std::uint64_t ns) {
  Account& a = g_own[static_cast<int>(work)][static_cast<int>(thread)];
  a.calls.fetch_add(1, std::memory_order_relaxed);
  a.items.fetch_add(items, std::memory_order_relaxed);
  a.ns.fetch_add(ns, std::memory_order_relaxed);
}

// The periodic flush: one call to CUPTI, less the writing its buffers took (accounted as write on this thread:
// nothing else writes on it while the flush runs). Its items keep the longest call, to show a flush that
// holds CUPTI long enough to stall the program's launches.
void account_flush(std::uint64_t ns) {
  Account& a = g_own[static_cast<int>(Work::flush)][static_cast<int>(Thread::gpuperf)];
  a.calls.fetch_add(1, std::memory_order_relaxed);
  a.ns.fetch_add(ns, std::memory_order_relaxed);
  std::uint64_t longest = a.items.load(std::memory_order_relaxed);
  while (ns > longest && !a.items.compare_exchange_weak(longest, ns, std::memory_order_relaxed)) {
  }
}

// Whose thread the caller is: ours (flush thread), CUPTI's worker (the thread that completes buffers outside
// our flushes; known from its first buffer), else the program's. A buffer asked for before CUPTI's worker
// completed one counts as the program's (the cautious side).
Thread calling_thread() {
  if (t_flush_thread) return Thread::gpuperf;
  const pid_t cupti = g_cupti_tid.load(std::memory_order_relaxed);
  return cupti != 0 && cupti == own_tid() ? Thread::cupti : Thread::program;
}

gpuperf::cupti::ActivityApi& activity() {
  static gpuperf::cupti::ActivityApi& a =
      gpuperf::cupti::ActivityApi::instance(gpuperf::cupti::linked_activity_functions());
  return a;
}

// The launching thread's NVTX stack of range names, to build the path pushed as an external id. Allocated on
// the thread's first push and never freed: a thread_local vector is destroyed when its thread ends (the main
// thread's inside exit(), before exit handlers), yet NVTX calls may still come from the program's own exit
// handlers. A few hundred bytes per thread that used NVTX.
struct ThreadRanges {
  std::vector<std::string> names;
  std::vector<std::uint64_t> ids;  // the interned id of the path up to each level
};
thread_local ThreadRanges* t_ranges = nullptr;

ThreadRanges& thread_ranges() {
  if (t_ranges == nullptr) t_ranges = new ThreadRanges;
  return *t_ranges;
}

// Appends bytes that end with '\n' (nothing once the file is finished).
void write_locked(const char* data, std::size_t size) {
  State& s = state();
  if (s.out == nullptr || s.finished) return;
  std::fwrite(data, 1, size, s.out);
}

void write_line_locked(const std::string& line) { write_locked((line + '\n').data(), line.size() + 1); }

// Appends one record of a kind of the codec (record_codec.hpp).
template <typename Line>
void write_line_locked(const Line& line) {
  std::string& text = state().line;
  text.clear();
  append_line(text, line);
  text += '\n';
  write_locked(text.data(), text.size());
}

}  // namespace

namespace gpuperf::record::inject {
const RecordConfig& config() {
  static const RecordConfig* c = [] {  // never destroyed: read from exit handlers too
    std::string error;
    auto* read = new RecordConfig(config_from_environment([](const char* v) { return std::getenv(v); }, &error));
    if (!error.empty()) std::fprintf(stderr, "gpuperf record: %s: %s\n", kRecordConfigVariable, error.c_str());
    return read;
  }();
  return *c;
}
void write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(state().mutex);
  write_line_locked(line);
}
void write_line_and_flush(const std::string& line) {
  std::lock_guard<std::mutex> lock(state().mutex);
  write_line_locked(line);
  if (state().out != nullptr && !state().finished) std::fflush(state().out);
}
std::string current_range_path() {
  std::string path;
  if (t_ranges == nullptr) return path;
  for (const auto& r : t_ranges->names) path += (path.empty() ? "" : "/") + r;
  return path;
}
std::uint64_t current_range_id() { return t_ranges == nullptr || t_ranges->ids.empty() ? 0 : t_ranges->ids.back(); }
void set_kernel_tracing(bool on) {
  const auto kinds = std::array{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL};
  (void)(on ? activity().enable(kinds) : activity().disable(kinds));
}
void flush_records_after_exclusive_launch() {
  if (state().forked_child || paused(kPartFlush)) return;
  (void)activity().flush(true);  // after finish() has begun, a no-op (ActivityApi rule 3)
}
}  // namespace gpuperf::record::inject

namespace {

void report_error(const std::string& what) {
  std::lock_guard<std::mutex> lock(state().mutex);
  write_line_locked(gpuperf::record::ErrorLine{what});
  if (state().out != nullptr) std::fflush(state().out);
}

std::string result_text(CUptiResult r) { return activity().error_text(r); }

// The id of `text` in `table`, its line (a NameLine or a RangeLine) written the first time.
template <typename Line>
std::uint64_t intern_locked(std::unordered_map<std::string, std::uint64_t>& table, const std::string& text) {
  auto it = table.find(text);
  if (it != table.end()) return it->second;
  const std::uint64_t id = table.size() + 1;
  table.emplace(text, id);
  write_line_locked(Line{id, text});
  return id;
}

// The name id of a kernel record's name.
std::uint64_t name_id_locked(const char* name) {
  State& s = state();
  if (name == nullptr) name = "?";
  if (name == s.last_name_pointer && s.last_name == name) return s.last_name_id;
  s.last_name_pointer = name;
  s.last_name = name;
  s.last_name_id = intern_locked<gpuperf::record::NameLine>(s.names, s.last_name);
  return s.last_name_id;
}

// Writes each completed buffer's kernel and external-correlation records (CUPTI's worker thread, or the
// thread that flushes). Never destroyed.
class RecordWriter : public gpuperf::cupti::ActivityHandler {
 public:
  // One lock per buffer, not per record (a record takes about 0.15 us to write on CUPTI's thread).
  void on_buffer(const gpuperf::cupti::ActivityBuffer& records, std::size_t dropped) override {
    if (paused(kPartWrite)) {
      std::uint64_t count = 0;
      records.for_each([&count](const CUpti_Activity&) { ++count; });
      return;
    }
    const std::uint64_t begin = monotonic_ns();
    Thread thread = Thread::gpuperf;
    if (!t_flush_thread) {
      thread = t_finishing ? Thread::program : Thread::cupti;
      pid_t none = 0;
      if (thread == Thread::cupti) g_cupti_tid.compare_exchange_strong(none, own_tid(), std::memory_order_relaxed);
    }
    std::uint64_t count = 0;
    {
      std::lock_guard<std::mutex> lock(state().mutex);
      write_buffer_locked(records, dropped, count);
    }
    account(Work::write, thread, count, monotonic_ns() - begin);
  }

  void on_request(std::uint64_t ns) override { account(Work::request, calling_thread(), 0, ns); }

 private:
  static void write_buffer_locked(const gpuperf::cupti::ActivityBuffer& records, std::size_t dropped,
                                  std::uint64_t& count) {
    records.for_each([&count](const CUpti_Activity& record) {
      ++count;
      write_record_locked(record);
    });
    if (dropped > 0) write_line_locked(gpuperf::record::DroppedLine{dropped});
    if (state().out == nullptr || state().finished) return;
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    write_line_locked(gpuperf::record::FlushLine{static_cast<std::uint64_t>(now.tv_sec) * 1000000000ull +
                                                 static_cast<std::uint64_t>(now.tv_nsec)});
    std::fflush(state().out);  // what a later SIGKILL cannot take back
  }

  static void write_record_locked(const CUpti_Activity& record) {
    if (record.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto& k = reinterpret_cast<const CUpti_ActivityKernel10&>(record);
      if (gpuperf::record::inject::is_own_kernel(k.name)) return;  // the L2 flush before a profiled launch
      gpuperf::record::KernelLine line;
      line.device = k.deviceId;
      line.context = k.contextId;
      line.stream = k.streamId;
      line.correlation = k.correlationId;
      line.start_ns = k.start;
      line.end_ns = k.end;
      line.grid[0] = static_cast<std::uint32_t>(k.gridX);
      line.grid[1] = static_cast<std::uint32_t>(k.gridY);
      line.grid[2] = static_cast<std::uint32_t>(k.gridZ);
      line.block[0] = static_cast<std::uint32_t>(k.blockX);
      line.block[1] = static_cast<std::uint32_t>(k.blockY);
      line.block[2] = static_cast<std::uint32_t>(k.blockZ);
      line.name_id = name_id_locked(k.name);
      line.graph = k.graphId;  // a kernel node of a CUDA graph's launch: a summary can say why it has no counters
      write_line_locked(line);
    } else if (record.kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto& e = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
      if (e.externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
        write_line_locked(gpuperf::record::CorrelationLine{e.correlationId, e.externalId});
    }
  }
};

// The text of a pushed range: ASCII, or a string the program registered; anything else (wide strings) is "?".
std::string range_message(const nvtxEventAttributes_t* a) {
  if (a == nullptr) return "?";
  if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii != nullptr) return a->message.ascii;
  if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) {
    std::lock_guard<std::mutex> lock(state().mutex);
    auto it = state().registered.find(a->message.registered);
    if (it != state().registered.end()) return it->second;
  }
  return "?";
}

// GPUPERF_RECORD_NVTX_TRACE=1: every push and pop on stderr, to see how a program nests its ranges.
bool g_trace_nvtx = false;

void trace_nvtx(const char* what, std::size_t depth, const std::string& message) {
  if (g_trace_nvtx)
    std::fprintf(stderr, "gpuperf-nvtx %ld %s %zu %s\n", static_cast<long>(gettid()), what, depth, message.c_str());
}

// The time CUPTI's push/pop of the external id took in this thread's NVTX callback (ns).
thread_local std::uint64_t t_external_ns = 0;

template <typename F>
std::uint64_t timed(F&& f) {
  const std::uint64_t begin = monotonic_ns();
  f();
  return monotonic_ns() - begin;
}

// NVTX push/pop on the calling thread: push the whole path as an external correlation id.
void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  std::string message;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
      const auto* p = static_cast<const nvtxDomainRegisterStringA_params*>(data->functionParams);
      const auto* handle = static_cast<const nvtxStringHandle_t*>(data->functionReturnValue);
      if (p != nullptr && p->string != nullptr && handle != nullptr && *handle != nullptr) {
        std::lock_guard<std::mutex> lock(state().mutex);
        state().registered[*handle] = p->string;
      }
      return;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const char* m = static_cast<const nvtxRangePushA_params*>(data->functionParams)->message;
      message = m != nullptr ? m : "?";
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      message = range_message(static_cast<const nvtxRangePushEx_params*>(data->functionParams)->eventAttrib);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      message = range_message(static_cast<const nvtxDomainRangePushEx_params*>(data->functionParams)->core.eventAttrib);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop: {
      // A pop without a push we saw (the range opened before CUDA started, so before this library): skip.
      ThreadRanges& ranges = thread_ranges();
      trace_nvtx("pop", ranges.names.size(), ranges.names.empty() ? "(none)" : ranges.names.back());
      if (ranges.names.empty()) return;
      gpuperf::record::inject::pm_on_nvtx_pop(ranges.names.size());  // --pm-sampling-nvtx's window
      ranges.names.pop_back();
      ranges.ids.pop_back();
      t_external_ns += timed([] { activity().pop_external(); });
      return;
    }
    default:
      if (g_trace_nvtx)
        std::fprintf(stderr, "gpuperf-nvtx %ld other %s\n", static_cast<long>(gettid()), data->functionName);
      return;
  }
  ThreadRanges& ranges = thread_ranges();
  ranges.names.push_back(std::move(message));
  trace_nvtx("push", ranges.names.size(), ranges.names.back());
  std::string path;
  for (const auto& r : ranges.names) path += (path.empty() ? "" : "/") + r;
  std::uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    id = intern_locked<gpuperf::record::RangeLine>(state().ranges, path);
  }
  ranges.ids.push_back(id);
  t_external_ns += timed([id] { activity().push_external(id); });
  gpuperf::record::inject::pm_on_nvtx_push(ranges.names.back(), ranges.names.size());
}

// A push or pop while gpuperf's work is paused (or the pop of a range pushed then): CUPTI's part alone.
bool bare_nvtx(CUpti_CallbackId cbid) {
  using gpuperf::record::inject::is_nvtx_pop;
  using gpuperf::record::inject::is_nvtx_push;
  if (is_nvtx_pop(cbid) && t_bare_depth > 0) {
    --t_bare_depth;
    activity().pop_external();
    return true;
  }
  if (is_nvtx_push(cbid) && paused(kPartNvtx)) {
    activity().push_external(++t_bare_depth);
    return true;
  }
  return false;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_NVTX) {
    if (g_ab_allowed.load(std::memory_order_relaxed) && bare_nvtx(cbid)) return;
    const std::uint64_t begin = monotonic_ns();
    t_external_ns = 0;
    on_nvtx(cbid, static_cast<const CUpti_NvtxData*>(data));
    const std::uint64_t external = t_external_ns;
    const bool push = gpuperf::record::inject::is_nvtx_push(cbid);
    const std::uint64_t all = monotonic_ns() - begin;
    account(Work::nvtx, Thread::program, push ? 1 : 0, all - std::min(all, external));
    if (external > 0) account(Work::external, Thread::program, push ? 1 : 0, external);
  } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    // PM sampling's window opens before --metrics sees a launch's entry and closes after it saw its exit.
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    const bool entry = cb->callbackSite == CUPTI_API_ENTER;
    if (entry) gpuperf::record::inject::pm_on_launch(domain, cbid, cb);
    gpuperf::record::inject::on_launch(domain, cbid, cb);
    if (!entry) gpuperf::record::inject::pm_on_launch(domain, cbid, cb);
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) gpuperf::record::inject::note_module_loaded(data);  // code identity
    gpuperf::record::inject::on_resource(cbid, data);  // source lines: a module's cubin (inject_lines.hpp)
  }
}

// The O lines: the library's own time by work and thread, those that ran at all.
void write_own_time_locked() {
  for (int w = 0; w < kWorks; ++w) {
    for (int t = 0; t < 3; ++t) {
      const Account& a = g_own[w][t];
      const std::uint64_t calls = a.calls.load(std::memory_order_relaxed);
      if (calls == 0) continue;
      write_line_locked(gpuperf::record::OwnWork{kWorkNames[w], kThreadNames[t], calls,
                                                 a.items.load(std::memory_order_relaxed),
                                                 a.ns.load(std::memory_order_relaxed)});
    }
  }
}

// Flushes every buffer, once, and closes the file with Z. Runs at exit, or from a fatal signal's handler.
// Not in a forked child: its copy of the file and of CUPTI's buffers are the parent's, who writes them.
void finish() {
  if (!g_started.load() || state().forked_child) return;
  g_ours_paused.store(0);  // the exit's last flush writes, whatever the overhead pause was
  t_finishing = true;      // the buffers of the last flush are written on this thread
  const bool last = activity().finish();
  t_finishing = false;
  if (!last) return;
  std::lock_guard<std::mutex> lock(state().mutex);
  if (state().finished || state().out == nullptr) return;
  write_own_time_locked();
  for (const std::string& line : gpuperf::record::inject::library_lines()) write_line_locked(line);
  write_line_locked(gpuperf::record::EndLine{});
  state().finished = true;
  std::fclose(state().out);
  state().out = nullptr;
}

// The handler's wait for the last flush (FinishHandoff): long enough for a forced flush of the buffers still
// in CUPTI (milliseconds), short enough that a program the flush cannot reach (the interrupted thread holds
// the state lock or is inside CUPTI) still dies of its signal promptly, losing at most the last period's
// records, as under SIGKILL.
constexpr int kSignalFinishTimeoutMs = 5000;

// The last flush's channel from a signal handler to the flush thread; null if it could not be made (then the
// handler flushes itself, as before: it works unless the interrupted thread holds what the flush needs).
gpuperf::record::FinishHandoff* g_handoff = nullptr;

// SIGINT/SIGTERM/SIGHUP with the default disposition would end the process without exit handlers: flush
// first (on the flush thread, see signal_finish.hpp), then die of the same signal. A program's own handlers
// are left alone (they usually exit()). A fork()ed child's flush is its parent's (finish() does nothing
// there): it only dies.
void on_fatal_signal(int sig) {
  if (!state().forked_child) {
    if (g_handoff != nullptr) {
      g_handoff->request_and_wait(kSignalFinishTimeoutMs);
    } else {
      finish();
    }
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// The flush period (GPUPERF_RECORD_FLUSH_MS; 0 turns the periodic flush off): 1 s by default, so a SIGKILL
// takes at most about a second of records.
unsigned flush_period_ms() { return static_cast<unsigned>(gpuperf::record::inject::config().flush_ms); }

// One periodic flush on the flush thread (cuptiActivityFlushAll, not forced); false when CUPTI refused it.
// Skipped, without calling CUPTI, while a profiled launch is in progress (flush_guard.hpp): the flush never
// waits on the profiler, so it goes on, and serves a fatal signal's last flush, even when a replay hangs.
bool timed_periodic_flush() {
  const Account& written = g_own[static_cast<int>(Work::write)][static_cast<int>(Thread::gpuperf)];
  const std::uint64_t written_before = written.ns.load(std::memory_order_relaxed);
  const std::uint64_t begin = monotonic_ns();
  const gpuperf::record::PeriodicFlush outcome = gpuperf::record::periodic_flush(activity());
  if (outcome == gpuperf::record::PeriodicFlush::skipped) return true;
  const std::uint64_t all = monotonic_ns() - begin;
  const std::uint64_t writing = written.ns.load(std::memory_order_relaxed) - written_before;
  account_flush(all - std::min(all, writing));
  return outcome == gpuperf::record::PeriodicFlush::flushed;
}

// "A <rank> <local rank> <world size>" from RANK, LOCAL_RANK and WORLD_SIZE (torchrun, mpirun's wrappers,
// Slurm launchers set them), "-" for one unset or not a number; no line when none is set.
std::optional<gpuperf::record::RankLine> rank_line() {
  bool any = false;
  gpuperf::record::RankLine line;
  std::optional<int>* fields[] = {&line.rank, &line.local_rank, &line.world_size};
  int field = 0;
  for (const char* name : {"RANK", "LOCAL_RANK", "WORLD_SIZE"}) {
    const char* v = std::getenv(name);
    long n = -1;
    if (v != nullptr && *v != '\0') {
      char* end = nullptr;
      errno = 0;
      n = std::strtol(v, &end, 10);
      if (errno != 0 || *end != '\0' || n < 0 || n > 1000000000L) n = -1;
    }
    any = any || n >= 0;
    if (n >= 0) *fields[field] = static_cast<int>(n);
    ++field;
  }
  if (!any) return std::nullopt;
  return line;
}

// The flush thread: a detached thread that every period hands CUPTI's completed buffers to the RecordWriter,
// and does a fatal signal's last flush when the handler asks (g_handoff; so it runs even with the periodic
// flush off). It never holds a lock while waiting, so exit() does not wait for it. ActivityApi::flush and
// finish() exclude each other: exit's finish() waits for a flush in flight (its buffers are written before
// Z), and once finish() has begun no flush reaches CUPTI, so none runs in the rest of the exit sequence.
// The thread takes no asynchronous signal (it is created with all of them blocked): a handler on this
// thread would wait for its own answer.
void start_flush_thread(unsigned period_ms) {
  static gpuperf::record::FinishHandoff* handoff = new gpuperf::record::FinishHandoff;  // never destroyed
  const bool handoff_open = handoff->open();
  if (period_ms == 0 && !handoff_open) return;
  sigset_t all{};
  sigset_t before{};
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);  // inherited by the new thread
  std::thread([period_ms] {
    t_flush_thread = true;
    handoff->serve(
        period_ms, [] { return paused(kPartFlush) || timed_periodic_flush(); }, [] { finish(); });
  }).detach();
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (handoff_open) g_handoff = handoff;
}

void install_signal_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
        (current.sa_flags & SA_SIGINFO) == 0) {
      std::signal(sig, on_fatal_signal);
    }
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  bool expected = false;
  if (!g_started.compare_exchange_strong(expected, true)) return 1;
  const gpuperf::record::RecordConfig& config = gpuperf::record::inject::config();
  if (config.dir.empty()) return 1;  // loaded without `gpuperf record`: do nothing
  const std::string path = config.dir + "/process-" + std::to_string(getpid()) + ".txt";
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().out = std::fopen(path.c_str(), "w");
    if (state().out == nullptr) return 1;
    std::setvbuf(state().out, nullptr, _IOFBF, 1 << 20);
    const char* argv0 = std::getenv("_");
    char exe[4096] = {0};
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    write_line_locked(gpuperf::record::ProcessLine{
        static_cast<std::uint32_t>(getpid()), static_cast<std::uint32_t>(getppid()),
        static_cast<std::uint64_t>(now.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(now.tv_nsec),
        n > 0 ? std::string(exe) : std::string(argv0 != nullptr ? argv0 : "?")});
    if (const auto rank = rank_line()) write_line_locked(*rank);
    std::fflush(state().out);
  }
  // NVTX reaches CUPTI only through NVTX_INJECTION64_PATH, read at the program's first NVTX call: point it
  // at the libcupti this library runs with (a program that used NVTX before CUDA started is too late).
  const bool nvtx = config.nvtx;  // gpuperf record --no-nvtx
  if (const std::string& ab = config.overhead_ab; !ab.empty()) {
    g_ab_parts = parse_parts(ab);
    if (g_ab_parts > 0) {
      g_ab_allowed = true;
    } else {
      report_error("GPUPERF_RECORD_OVERHEAD_AB='" + ab +
                   "': expected all, or a comma list of nvtx, write and flush; the pause is off");
    }
  }
  g_trace_nvtx = config.nvtx_trace;
  Dl_info cupti_info{};
  if (nvtx && std::getenv("NVTX_INJECTION64_PATH") == nullptr &&
      dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &cupti_info) != 0 && cupti_info.dli_fname != nullptr) {
    setenv("NVTX_INJECTION64_PATH", cupti_info.dli_fname, 0);
  }
  static RecordWriter* writer = new RecordWriter;  // never destroyed
  gpuperf::cupti::ActivityApi& api = activity();
  CUptiResult r = api.start(*writer, kBufferBytes);
  if (r == CUPTI_SUCCESS) r = api.enable(std::array{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL});
  if (nvtx) {
    if (r == CUPTI_SUCCESS) r = api.enable(std::array{CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION});
    // External correlation records are issued with API records: trace the launch APIs alone, not every call.
    using namespace gpuperf::record::inject;
    if (r == CUPTI_SUCCESS) r = api.enable_api_records(kRuntimeKernelLaunches, kDriverKernelLaunches);
    if (r == CUPTI_SUCCESS) r = api.enable_api_records(kRuntimeOtherLaunches, kDriverOtherLaunches);
  }
  if (r != CUPTI_SUCCESS) {
    report_error(std::string("cannot trace kernels: ") + result_text(r));
    return 1;
  }
  if (nvtx || !config.metrics.empty() || config.pm_sampling) {
    CUpti_SubscriberHandle subscriber = nullptr;
    r = cuptiSubscribe(&subscriber, on_callback, nullptr);
    if (r == CUPTI_SUCCESS && nvtx) r = cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX);
    // Every module's functions and their code fingerprints (inject_identity.hpp), plain and --metrics alike.
    if (r == CUPTI_SUCCESS) {
      r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
    }
    if (r != CUPTI_SUCCESS) {
      // Kernels are still traced; NVTX paths and metrics are missing. Another tool may hold the one subscriber.
      report_error(
          std::string("NVTX ranges and hardware metrics are not recorded: cuptiSubscribe/cuptiEnableDomain: ") +
          result_text(r) +
          (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? " (another profiler, e.g. ncu or nsys, is attached)"
                                                               : ""));
    } else {
      gpuperf::record::inject::init_metrics(subscriber);
      gpuperf::record::inject::init_pm(subscriber);  // --pm-sampling (inject_pm.hpp)
    }
  }
  std::atexit(finish);
  // Runs before finish (atexit's order): a profiler session kept enabled is ended at a normal exit only (a fatal
  // signal's flush must not wait on CUPTI's profiler).
  std::atexit(gpuperf::record::inject::end_metrics_session);
  std::atexit(gpuperf::record::inject::end_pm_window);  // runs first: a window still open is decoded
  // A fork() without exec (DataLoader workers, multiprocessing): the child inherits the file and CUPTI's
  // buffers but neither CUPTI's threads nor ours; it writes nothing (an exec'd program injects anew).
  pthread_atfork(nullptr, nullptr, [] { state().forked_child = true; });
  start_flush_thread(flush_period_ms());  // before the handlers, which hand their flush to it
  install_signal_handlers();
  return 1;
}

// The pause of GPUPERF_RECORD_OVERHEAD_AB (above): `on` 0 pauses the parts of gpuperf's own work it names in
// this process, 1 resumes them. Returns 0, or -1 (and changes nothing) without GPUPERF_RECORD_OVERHEAD_AB. Call it
// outside any NVTX range the program has open. A program finds it with dlopen(CUDA_INJECTION64_PATH, RTLD_NOLOAD).
extern "C" __attribute__((visibility("default"))) int gpuperf_record_overhead_ours(int on) {
  if (!g_ab_allowed.load()) return -1;
  g_ours_paused.store(on == 0 ? g_ab_parts : 0);
  return 0;
}
