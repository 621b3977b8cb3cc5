// A fatal signal's last flush, handed from the signal handler to a thread of the injection library
// (profiler/record/inject/inject.cpp).
//
// Why not flush in the handler: the handler runs on whichever thread the signal interrupted, and that thread
// may hold the library's state lock (writing an NVTX range or a record) or be inside CUPTI. The last flush
// needs that lock (CUPTI hands the buffers to the record writer, which takes it), so flushing in the handler
// waited for itself, and the program, instead of dying of its SIGTERM, hung. So the handler only writes a
// byte to a pipe (async-signal-safe) and waits, for a bounded time, for the serving thread (the periodic
// flush thread, which blocks every signal) to do the last flush and answer. If the interrupted thread holds
// what the flush needs, the answer does not come, the wait ends, and the program dies of its signal as it
// would have without the library: what the last period's flush did not write is lost (as under SIGKILL), and
// nothing hangs.
#pragma once

#include <functional>

namespace gpuperf::record {

class FinishHandoff {
 public:
  // Creates the two pipes (close-on-exec). False if it cannot: the caller keeps to another way.
  bool open();

  // From a signal handler (async-signal-safe: write, poll, read, clock_gettime): asks the serving thread for
  // the last flush and waits for its answer at most `timeout_ms`. True if it answered in time.
  bool request_and_wait(int timeout_ms) const;

  // The serving thread's loop, never returning: calls `on_period` every `period_ms` (0: never; once it
  // returns false, never again) and, for each request, `on_finish` once, then answers every request waiting.
  // The thread must block asynchronous signals (else a handler running on it would wait for itself).
  [[noreturn]] void serve(unsigned period_ms, const std::function<bool()>& on_period,
                          const std::function<void()>& on_finish) const;

 private:
  int request_[2] = {-1, -1};  // handler -> serving thread
  int answer_[2] = {-1, -1};   // serving thread -> handler
};

}  // namespace gpuperf::record
