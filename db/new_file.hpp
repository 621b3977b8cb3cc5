// A new file that appears whole or not at all: it is written under a temporary name beside its destination
// and given the destination's name only when complete (a backup, a database being created, a merge into a
// new file).
//
// The temporary name is ".NAME.tmp-PID-RANDOM" in the destination's folder, so the rename never crosses a
// file system. It is removed on every failure path and on SIGINT, SIGTERM, SIGHUP or SIGXFSZ while it
// exists; SQLite's "-journal", "-wal" and "-shm" files beside it go with it. A SIGKILL leaves it behind: the
// next NewFile for the same destination removes every temporary of that destination that no live process
// holds (each holds an flock on its own).
#pragma once

#include <string>

namespace gpuperf::db {

class NewFile {
 public:
  // Creates an empty temporary file beside `dest` (EnvironmentError naming the folder and the cause when
  // that is impossible). Does not look at `dest` itself.
  explicit NewFile(const std::string& dest);
  ~NewFile();  // removes the temporary (and SQLite's files beside it) unless published
  NewFile(const NewFile&) = delete;
  NewFile& operator=(const NewFile&) = delete;

  const std::string& temp_path() const { return temp_; }
  const std::string& dest() const { return dest_; }

  // Flushes the temporary to disk and gives it the destination's name, never replacing a file: true when
  // it is in place, false when `dest` appeared meanwhile (the temporary is then removed). Call it only
  // after every connection to the temporary is closed.
  bool publish();

 private:
  std::string dest_;
  std::string temp_;
  int slot_ = -1;     // in the signal handler's table
  int lock_fd_ = -1;  // holds an flock on the temporary while this object lives
  bool published_ = false;
};

// The prefix of every temporary of `dest` (".NAME.tmp-"), for tests and for the clean-up.
std::string temp_prefix(const std::string& dest);

}  // namespace gpuperf::db
