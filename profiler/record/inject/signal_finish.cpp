#include "profiler/record/inject/signal_finish.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "profiler/cupti/monotonic_clock.hpp"

namespace gpuperf::record {
namespace {

long long now_ms() { return static_cast<long long>(monotonic_ns() / 1000000); }

}  // namespace

bool FinishHandoff::open() {
  if (pipe2(request_, O_CLOEXEC) != 0) return false;
  if (pipe2(answer_, O_CLOEXEC) != 0) {
    close(request_[0]);
    close(request_[1]);
    request_[0] = request_[1] = -1;
    return false;
  }
  // Neither writer may block: a request or an answer is one byte, and a full pipe already says enough.
  fcntl(request_[1], F_SETFL, O_NONBLOCK);
  fcntl(answer_[1], F_SETFL, O_NONBLOCK);
  return true;
}

bool FinishHandoff::request_and_wait(int timeout_ms) const {
  if (request_[1] < 0) return false;
  const int saved_errno = errno;  // a handler leaves errno as it found it
  const char byte = 'F';
  ssize_t n = 0;
  do {
    n = write(request_[1], &byte, 1);
  } while (n < 0 && errno == EINTR);
  bool answered = false;
  if (n == 1) {
    const long long deadline = now_ms() + timeout_ms;
    for (long long left = timeout_ms; left > 0; left = deadline - now_ms()) {
      pollfd p{answer_[0], POLLIN, 0};
      const int r = poll(&p, 1, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      char got = 0;
      answered = read(answer_[0], &got, 1) == 1;
      break;
    }
  }
  errno = saved_errno;
  return answered;
}

void FinishHandoff::serve(unsigned period_ms, const std::function<bool()>& on_period,
                          const std::function<void()>& on_finish) const {
  bool periodic = period_ms > 0;
  long long next = now_ms() + period_ms;
  for (;;) {
    const int timeout = periodic ? static_cast<int>(next - now_ms() > 0 ? next - now_ms() : 0) : -1;
    pollfd p{request_[0], POLLIN, 0};
    const int r = poll(&p, 1, timeout);
    if (r < 0) continue;  // EINTR (signals are blocked on this thread, but a debugger may still wake it)
    if (r == 0) {
      // The period is up.
      periodic = on_period();
      next = now_ms() + period_ms;
      continue;
    }
    char requests[64];
    const ssize_t n = read(request_[0], requests, sizeof requests);
    if (n <= 0) continue;
    on_finish();  // once: finish() flushes once however often it is called
    for (ssize_t i = 0; i < n; ++i) {
      const char byte = 'D';
      if (write(answer_[1], &byte, 1) != 1) break;
    }
  }
}

}  // namespace gpuperf::record
