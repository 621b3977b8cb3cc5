// A writer waiting for another process's transaction on a database file, as reported while it waits.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace gpuperf::db {

struct LockWait {
  std::string path;
  std::chrono::milliseconds waited{0};
  std::chrono::milliseconds timeout{0};
  std::string holders;  // the processes holding the lock, in words; may be empty
};
using LockWaitReporter = std::function<void(const LockWait&)>;

}  // namespace gpuperf::db
