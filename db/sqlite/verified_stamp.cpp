#include "db/sqlite/verified_stamp.hpp"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

#include "core/atomic_file.hpp"
#include "core/errors.hpp"
#include "db/sqlite/connection.hpp"

namespace gpuperf::db {
namespace {

constexpr const char* kMagic = "gpuperf-verified 1";
constexpr std::int64_t kEndBytes = 64 * 1024;
// A change made in the same clock tick as gpuperf's last write leaves the file's times as they were; ticks
// are 1-10 ms on Linux, so a stamp is trusted only when taken this long after the file's last change.
constexpr std::int64_t kSettleNs = 20'000'000;
constexpr std::int64_t kSecondNs = 1'000'000'000;

std::int64_t clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void fnv1a(std::uint64_t& h, const char* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
}

// Read through SQLite's file layer (read_file_bytes): the writer that stamps or checks a file may have a
// connection to it open, whose locks a plain close() of the file would drop.
std::uint64_t ends_hash(const std::string& path, std::uint64_t size) {
  std::uint64_t h = 14695981039346656037ull;
  std::vector<char> buf(static_cast<std::size_t>(kEndBytes));
  const auto take = [&](std::uint64_t at) {
    const long long got = read_file_bytes(path, at, buf.data(), buf.size());
    if (got > 0) fnv1a(h, buf.data(), static_cast<std::size_t>(got));
  };
  take(0);
  if (size > static_cast<std::uint64_t>(kEndBytes)) take(size - kEndBytes);
  return h;
}

}  // namespace

std::string stamp_path(const std::string& db_path) { return db_path + "-verified"; }

std::int64_t unix_now() { return clock_ns() / kSecondNs; }

std::optional<FileStamp> stamp_of(const std::string& db_path) {
  struct stat st {};
  if (::stat(db_path.c_str(), &st) != 0) return std::nullopt;
  FileStamp f;
  f.size = static_cast<std::uint64_t>(st.st_size);
  f.inode = static_cast<std::uint64_t>(st.st_ino);
  f.device = static_cast<std::uint64_t>(st.st_dev);
  f.mtime_ns = std::int64_t{st.st_mtim.tv_sec} * kSecondNs + st.st_mtim.tv_nsec;
  f.ctime_ns = std::int64_t{st.st_ctim.tv_sec} * kSecondNs + st.st_ctim.tv_nsec;
  f.ends_hash = ends_hash(db_path, f.size);
  return f;
}

std::optional<VerifiedStamp> read_stamp(const std::string& db_path) {
  std::ifstream in(stamp_path(db_path));
  std::string line;
  if (!in || !std::getline(in, line) || line != kMagic) return std::nullopt;
  std::map<std::string, std::string> fields;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, value;
    if (words >> key >> value) fields[key] = value;
  }
  const auto number = [&](const char* key, int base, auto& out) {
    const auto it = fields.find(key);
    if (it == fields.end()) return false;
    char* end = nullptr;
    out = static_cast<std::remove_reference_t<decltype(out)>>(std::strtoull(it->second.c_str(), &end, base));
    return end != it->second.c_str() && *end == '\0';
  };
  VerifiedStamp s;
  const bool whole = number("size", 10, s.file.size) && number("mtime_ns", 10, s.file.mtime_ns) &&
                     number("ctime_ns", 10, s.file.ctime_ns) && number("inode", 10, s.file.inode) &&
                     number("device", 10, s.file.device) && number("ends_fnv1a64", 16, s.file.ends_hash) &&
                     number("stamped_at_ns", 10, s.stamped_at_ns) && number("full_check_at", 10, s.full_check_at);
  if (!whole) return std::nullopt;
  return s;
}

bool write_stamp(const std::string& db_path, const VerifiedStamp& s) {
  std::ostringstream out;
  out << kMagic << "\n# what gpuperf last verified of " << db_path << " (docs/database.md, Damaged files)\n"
      << "size " << s.file.size << "\nmtime_ns " << s.file.mtime_ns << "\nctime_ns " << s.file.ctime_ns << "\ninode "
      << s.file.inode << "\ndevice " << s.file.device << "\nends_fnv1a64 " << std::hex << s.file.ends_hash << std::dec
      << "\nstamped_at_ns " << s.stamped_at_ns << "\nfull_check_at " << s.full_check_at << "\n";
  try {
    write_file_atomically(stamp_path(db_path), out.str());
    return true;
  } catch (const Error&) {
    return false;  // a read-only folder, a full disk: the next writer checks in full
  }
}

bool stamp_now(const std::string& db_path, std::int64_t full_check_at) {
  const std::optional<FileStamp> before = stamp_of(db_path);
  if (!before) return false;
  const std::int64_t wait = before->mtime_ns + kSettleNs - clock_ns();
  if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(wait, kSettleNs + 5'000'000)));
  VerifiedStamp s;
  s.stamped_at_ns = clock_ns();
  const std::optional<FileStamp> now = stamp_of(db_path);
  if (!now || !(*now == *before)) return false;  // another writer is at work: it stamps when it closes
  s.file = *now;
  s.full_check_at = full_check_at;
  return write_stamp(db_path, s);
}

int full_check_days() {
  const char* env = std::getenv("GPUPERF_DB_FULL_CHECK_DAYS");
  if (env == nullptr || *env == '\0') return kFullCheckDays;
  char* end = nullptr;
  const long days = std::strtol(env, &end, 10);
  if (end == env || *end != '\0' || days < 0 || days > 3650) {
    throw InputError("GPUPERF_DB_FULL_CHECK_DAYS: '" + std::string(env) +
                     "' is not a number of days (0 to 3650; 0 checks every page on every write)");
  }
  return static_cast<int>(days);
}

std::optional<std::string> full_check_reason(const std::string& db_path, std::int64_t now_unix,
                                             std::int64_t* last_full) {
  const int days = full_check_days();
  if (days == 0) return "GPUPERF_DB_FULL_CHECK_DAYS=0";
  const std::optional<VerifiedStamp> s = read_stamp(db_path);
  if (!s) return "no stamp of a verified state";
  const std::optional<FileStamp> now = stamp_of(db_path);
  if (!now || !(*now == s->file)) return "changed since gpuperf last stamped it";
  // Too soon after the last change to tell a later change apart; on a file system that keeps whole
  // seconds, within the same second.
  const std::int64_t settle = s->file.mtime_ns % kSecondNs == 0 ? kSecondNs + kSettleNs : kSettleNs;
  if (s->stamped_at_ns - s->file.mtime_ns < settle) return "stamped too soon after its last change";
  const std::int64_t age = now_unix - s->full_check_at;
  if (age < 0 || age >= std::int64_t{days} * 86400) {
    return "last checked in full " + std::to_string(age / 86400) + " days ago";
  }
  if (last_full != nullptr) *last_full = s->full_check_at;
  return std::nullopt;
}

StampOnClose::StampOnClose(std::string db_path, std::optional<std::int64_t> full_check_at)
    : path_(std::move(db_path)), full_check_at_(full_check_at), exceptions_(std::uncaught_exceptions()) {}

StampOnClose::~StampOnClose() {
  if (!full_check_at_) return;
  try {
    if (std::uncaught_exceptions() > exceptions_) {
      std::error_code ec;
      std::filesystem::remove(stamp_path(path_), ec);
    } else {
      stamp_now(path_, *full_check_at_);
    }
  } catch (...) {  // a stamp is a shortcut: without one the next writer checks in full
  }
}

}  // namespace gpuperf::db
