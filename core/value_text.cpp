#include "core/value_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpuperf {

UnitScale scale_for(const std::string& unit, double magnitude, UnitText text) {
  const double m = std::fabs(magnitude);
  if (unit == "ns") {
    if (m >= 1e9) return {1e9, "s"};
    if (m >= 1e6) return {1e6, "ms"};
    if (m >= 1e3) return {1e3, text == UnitText::report ? "\xC2\xB5s" : "us"};  // µs
    return {1, "ns"};
  }
  if (unit == "bytes") {
    if (m >= 1e9) return {1e9, "GB"};
    if (m >= 1e6) return {1e6, "MB"};
    if (m >= 1e3) return {1e3, "kB"};
    return {1, "B"};
  }
  if (unit == "count" || unit.empty()) {
    if (m >= 1e9) return {1e9, "G"};
    if (m >= 1e6) return {1e6, "M"};
    if (m >= 1e4) return {1e3, "k"};
    return {1, ""};
  }
  return {1, unit};
}

std::string format_number(double v, int significant) {
  if (!std::isfinite(v)) return std::isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf");
  if (v == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::clamp(significant - 1 - magnitude, 0, 9);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string format_value(double v, const std::string& unit, UnitText text) {
  const UnitScale sc = scale_for(unit, v, text);
  const bool count = unit == "count" || unit.empty();
  const bool terminal = text == UnitText::terminal;
  const std::string num = format_number(v / sc.divisor, terminal && count && sc.divisor == 1 ? 6 : 4);
  if (sc.unit.empty()) return num;
  if (sc.unit == "%" || (terminal && count)) return num + sc.unit;
  return num + " " + sc.unit;
}

}  // namespace gpuperf
