// What gpuperf last verified of an SQLite file, kept beside it ("PATH-verified"), so that a writer of a
// year-old history checks every page (PRAGMA quick_check, about 1 CPU-second per 125 MB) only when the file
// may have changed behind gpuperf's back, not on every write. docs/database.md "Damaged files" says what the
// stamp does and does not detect.
//
// A stamp is the file's identity and times as gpuperf left it (size, mtime and ctime in ns, inode, device,
// a hash of its first and last 64 KiB) and when its pages were last checked in full. A writer whose open
// finds the file exactly as stamped, stamped long enough after its last change to tell a later change
// apart, and checked in full within the last kFullCheckDays, runs only a cheap check; any difference costs
// the full check. Writers restamp when they close. The stamp is only ever a shortcut: a missing, unreadable,
// stale or foreign one means the full check, never a skipped one it was not entitled to.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gpuperf::db {

// Pages are checked in full at least this often, whatever the stamp says: bit rot in place changes no
// file time, and only a full check finds it. $GPUPERF_DB_FULL_CHECK_DAYS overrides (0: every write).
constexpr int kFullCheckDays = 7;

struct FileStamp {
  std::uint64_t size = 0, inode = 0, device = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  std::uint64_t ends_hash = 0;  // FNV-1a 64 of the first and the last 64 KiB
  bool operator==(const FileStamp& o) const {
    return size == o.size && inode == o.inode && device == o.device && mtime_ns == o.mtime_ns &&
           ctime_ns == o.ctime_ns && ends_hash == o.ends_hash;
  }
};

struct VerifiedStamp {
  FileStamp file;
  std::int64_t stamped_at_ns = 0;  // the clock when the stamp was taken (after file.mtime_ns)
  std::int64_t full_check_at = 0;  // unix seconds of the last full check of the pages
};

// "PATH-verified".
std::string stamp_path(const std::string& db_path);
// The file as it is now; nullopt when it cannot be read.
std::optional<FileStamp> stamp_of(const std::string& db_path);
// The sidecar's stamp; nullopt when it is missing or not a stamp.
std::optional<VerifiedStamp> read_stamp(const std::string& db_path);
// Writes the stamp atomically. Best effort: returns false (and leaves any previous stamp) when the folder
// cannot take it; the next writer then checks in full.
bool write_stamp(const std::string& db_path, const VerifiedStamp& stamp);
// Stamps the file as it is now, waiting (at most ~25 ms) until its last change is far enough in the past
// that a later change shows in its times. False when it could not (the file changes meanwhile, no folder).
bool stamp_now(const std::string& db_path, std::int64_t full_check_at);

// Why the pages of `db_path` must be checked in full, or nullopt when its stamp allows the cheap check:
// "no stamp", "changed since gpuperf last stamped it", "last checked in full 9 days ago", ... With nullopt,
// `last_full` (may be null) is set to the stamp's full_check_at.
std::optional<std::string> full_check_reason(const std::string& db_path, std::int64_t now_unix,
                                             std::int64_t* last_full = nullptr);
// $GPUPERF_DB_FULL_CHECK_DAYS when set (InputError for a bad value), else kFullCheckDays.
int full_check_days();
std::int64_t unix_now();

// A writer's stamp, taken when the engine that holds it is destroyed: declared before the engine's
// connection, it outlives it, so the file is stamped after the close has checkpointed the WAL into it.
// An engine destroyed by an exception (a failed write, perhaps damage that the cheap check let through)
// removes the stamp instead, so that the next writer checks in full.
class StampOnClose {
 public:
  StampOnClose(std::string db_path, std::optional<std::int64_t> full_check_at);
  StampOnClose(const StampOnClose&) = delete;
  StampOnClose& operator=(const StampOnClose&) = delete;
  ~StampOnClose();

 private:
  std::string path_;
  std::optional<std::int64_t> full_check_at_;  // nullopt: nothing to stamp (a reader, :memory:)
  int exceptions_ = 0;                         // std::uncaught_exceptions() when made
};

}  // namespace gpuperf::db
