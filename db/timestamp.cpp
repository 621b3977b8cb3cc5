#include "db/timestamp.hpp"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace gpuperf::db {
namespace {

bool digits(const std::string& s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) == 0) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : d[m - 1];
}

}  // namespace

std::optional<std::string> normalize_timestamp(const std::string& t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!digits(t, 0, 4, y) || t.size() < 19 || t[4] != '-' || !digits(t, 5, 2, mo) || t[7] != '-' ||
      !digits(t, 8, 2, d) || t[10] != 'T' || !digits(t, 11, 2, h) || t[13] != ':' || !digits(t, 14, 2, mi) ||
      t[16] != ':' || !digits(t, 17, 2, s)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59) return std::nullopt;
  std::size_t pos = 19;
  std::string fraction;
  if (pos < t.size() && t[pos] == '.') {
    std::size_t end = pos + 1;
    while (end < t.size() && std::isdigit(static_cast<unsigned char>(t[end])) != 0) ++end;
    if (end == pos + 1) return std::nullopt;
    fraction = t.substr(pos, end - pos);
    pos = end;
  }
  if (pos >= t.size()) return std::nullopt;  // a zone is required: local times do not order
  int offset_minutes = 0;
  if (t[pos] == 'Z') {
    if (pos + 1 != t.size()) return std::nullopt;
  } else if (t[pos] == '+' || t[pos] == '-') {
    int oh = 0, om = 0;
    if (t.size() != pos + 6 || !digits(t, pos + 1, 2, oh) || t[pos + 3] != ':' || !digits(t, pos + 4, 2, om) ||
        oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = (t[pos] == '+' ? 1 : -1) * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  std::time_t utc = timegm(&tm) - static_cast<std::time_t>(offset_minutes) * 60;
  std::tm out{};
  if (gmtime_r(&utc, &out) == nullptr) return std::nullopt;
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &out);
  return std::string(buf) + fraction + "Z";
}

bool is_normalized_timestamp(const std::string& text) {
  auto n = normalize_timestamp(text);
  return n.has_value() && *n == text;
}

int compare_timestamps(const std::string& a, const std::string& b) {
  // Without the "Z", a shorter text that is a prefix of the other (no fraction) is the earlier time.
  const std::string x = a.empty() || a.back() != 'Z' ? a : a.substr(0, a.size() - 1);
  const std::string y = b.empty() || b.back() != 'Z' ? b : b.substr(0, b.size() - 1);
  return x.compare(y);
}

std::string utc_timestamp(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpuperf::db
