#include "profiler/record/inject/profile_session.hpp"

#include <exception>
#include <utility>

namespace gpuperf::record::inject {

const char* to_string(SessionEnd why) {
  switch (why) {
    case SessionEnd::other_launch: return "other_launch";
    case SessionEnd::capture_begin: return "capture_begin";
    case SessionEnd::context_destroy: return "context_destroy";
    case SessionEnd::process_exit: return "process_exit";
    case SessionEnd::another_context: return "another_context";
    case SessionEnd::not_kept: return "not_kept";
    case SessionEnd::another_configuration: return "another_configuration";
    case SessionEnd::source_lines: return "source_lines";
    case SessionEnd::kEnds: break;
  }
  return "?";
}

LaunchAction KeptSession::on_launch(bool wanted, bool captured, std::string* error) {
  if (captured) return LaunchAction::pass;  // never profiled; ending the session here would break the capture
  if (wanted) return LaunchAction::profile;
  if (kept()) {
    std::string e = end(SessionEnd::other_launch);
    if (error != nullptr) *error = std::move(e);
  }
  return LaunchAction::pass;
}

bool KeptSession::open(const void* context, cupti::RangeProfilerBackend& backend, std::size_t configuration) {
  if (kept() && (context_ != context || backend_ != &backend)) end(SessionEnd::another_context);
  // Restarted with another configuration, a kernel-replay session gave NaN for every metric of the new one
  // (H100, CUPTI 13.0: 6 groups over launches of one identity, only each identity's first group, begun, had
  // values), so a change of configuration begins the session anew.
  if (kept() && configuration_ != configuration) end(SessionEnd::another_configuration);
  if (kept()) {
    kept_.store(false, std::memory_order_release);  // open, not kept, until done()
    try {
      if (backend.restart_session(configuration, cupti::SessionReplay::kernel, 1)) {
        ++restarts_;
        return true;
      }
    } catch (...) {
      backend_ = nullptr;
      context_ = nullptr;
      try {
        backend.end_session();
      } catch (const std::exception&) {  // the restart's failure is the one reported
      }
      throw;
    }
  }
  context_ = context;
  backend_ = &backend;
  configuration_ = configuration;
  backend.begin_session(configuration, cupti::SessionReplay::kernel, 1);
  ++begins_;
  return false;
}

void KeptSession::done() {
  if (backend_ == nullptr) return;
  if (keep_) {
    kept_.store(true, std::memory_order_release);
    return;
  }
  cupti::RangeProfilerBackend* b = backend_;
  backend_ = nullptr;
  context_ = nullptr;
  ++ends_[static_cast<int>(SessionEnd::not_kept)];
  b->end_session();
}

std::string KeptSession::end(SessionEnd why) {
  if (!kept()) return "";
  kept_.store(false, std::memory_order_release);
  cupti::RangeProfilerBackend* b = backend_;
  backend_ = nullptr;
  context_ = nullptr;
  ++ends_[static_cast<int>(why)];
  if (b == nullptr) return "";
  try {
    b->end_session();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

void KeptSession::forget(const cupti::RangeProfilerBackend* backend) {
  if (backend_ != backend) return;
  kept_.store(false, std::memory_order_release);
  backend_ = nullptr;
  context_ = nullptr;
}

}  // namespace gpuperf::record::inject
