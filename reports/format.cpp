#include "reports/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/stats.hpp"

namespace gpuperf::reports {

std::string format_signed_value(double v, const std::string& unit, UnitText text) {
  return (v > 0 ? "+" : v < 0 ? "-" : "") + format_value(std::fabs(v), unit, text);
}

std::string format_change_pct(double pct) {
  if (!std::isfinite(pct)) return pct > 0 ? "+inf%" : "n/a";
  char buf[64];
  const double a = std::fabs(pct);
  if (a >= 100) {
    std::snprintf(buf, sizeof buf, "%+.0f%%", pct);
  } else {
    std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
  }
  std::string s = buf;
  if (s == "-0.0%") s = "+0.0%";
  return s;
}

std::string format_change(double before, double after, double pct) {
  if (before == 0 && after != 0) return "new (was 0)";
  return format_change_pct(pct);
}

std::string format_ratio(double r) {
  if (!std::isfinite(r)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, r >= 100 ? "%.0f" : (r >= 10 ? "%.1f" : "%.2f"), r);
  return std::string(buf) + "\xC3\x97";  // ×
}

std::string format_state(bool unconfirmed, std::size_t runs_after) {
  if (!unconfirmed) return "confirmed";
  return "unconfirmed (" + std::to_string(runs_after) + (runs_after == 1 ? " run)" : " runs)");
}

std::string format_answer(bool accepted, const std::string& reason) {
  return std::string(accepted ? "accepted: " : "acknowledged: ") + reason;
}

std::string short_commit(const std::string& sha) { return sha.substr(0, std::min<std::size_t>(sha.size(), 10)); }

std::string format_datetime(const std::string& iso) {
  // YYYY-MM-DDTHH:MM...
  if (iso.size() >= 16 && iso[4] == '-' && iso[7] == '-' && (iso[10] == 'T' || iso[10] == ' ') && iso[13] == ':') {
    return iso.substr(0, 10) + " " + iso.substr(11, 5);
  }
  return iso;
}

std::string format_date(const std::string& iso) {
  if (iso.size() >= 10 && iso[4] == '-' && iso[7] == '-') return iso.substr(0, 10);
  return iso;
}

std::string sparkline(const std::vector<double>& values, std::size_t width) {
  static const char* const kBars[] = {"\xE2\x96\x81", "\xE2\x96\x82", "\xE2\x96\x83", "\xE2\x96\x84",
                                      "\xE2\x96\x85", "\xE2\x96\x86", "\xE2\x96\x87", "\xE2\x96\x88"};
  if (values.empty() || width == 0) return "";
  std::vector<double> buckets;
  if (values.size() <= width) {
    buckets = values;
  } else {
    buckets.reserve(width);
    for (std::size_t b = 0; b < width; ++b) {
      const std::size_t lo = b * values.size() / width;
      const std::size_t hi = (b + 1) * values.size() / width;
      buckets.push_back(median(std::vector<double>(values.begin() + static_cast<std::ptrdiff_t>(lo),
                                                   values.begin() + static_cast<std::ptrdiff_t>(hi))));
    }
  }
  const auto [mn, mx] = std::minmax_element(buckets.begin(), buckets.end());
  double lo = *mn, hi = *mx;
  // Run-to-run noise of a fraction of a percent should not fill the whole height: the drawn range spans at
  // least 5% of the level.
  const double min_span = 0.05 * std::fabs((lo + hi) / 2);
  if (hi - lo < min_span) {
    const double mid = (lo + hi) / 2;
    lo = mid - min_span / 2;
    hi = mid + min_span / 2;
  }
  std::string out;
  for (double v : buckets) {
    int level = 3;
    if (hi > lo) level = static_cast<int>(std::floor((v - lo) / (hi - lo) * 7.999));
    out += kBars[std::clamp(level, 0, 7)];
  }
  return out;
}

}  // namespace gpuperf::reports
