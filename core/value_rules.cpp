#include "core/value_rules.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

namespace gpuperf::rules {
namespace {

std::string quoted(const std::string& text) { return "'" + rules::shown_text(text) + "'"; }

int days_in(int year, int month) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : days[month - 1];
}

}  // namespace

std::string shown_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    char buf[8];
    if (b < 0x20 || b == 0x7F) {
      std::snprintf(buf, sizeof buf, "\\u%04x", b);
      out += buf;
    } else if (b == 0xC2 && next >= 0x80 && next < 0xA0) {  // U+0080-U+009F: C1 controls (CSI is U+009B)
      std::snprintf(buf, sizeof buf, "\\u%04x", next);
      out += buf;
      ++i;
    } else if (b >= 0x80 && b < 0xC0 && (i == 0 || static_cast<unsigned char>(text[i - 1]) < 0x80)) {
      std::snprintf(buf, sizeof buf, "\\x%02x", b);  // a lone continuation byte: 0x9B is CSI to an 8-bit terminal
      out += buf;
    } else {
      out += text[i];
    }
  }
  return out;
}

namespace {

// A date or its prefix: year, then month, day, hour, minute and second, each optional after the one before.
const std::regex& date_form() {
  static const std::regex form(R"((\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2}))?)?Z?)?)?)?)");
  return form;
}

// What the calendar lacks in a match of date_form(), ": month 13 is not 01-12"; "" when it holds.
std::string calendar_fault(const std::smatch& m) {
  const auto part = [&](int i) { return m[i].matched ? std::atoi(m[i].str().c_str()) : -1; };
  const int year = part(1), month = part(2), day = part(3), hour = part(4), minute = part(5), second = part(6);
  if (month != -1 && (month < 1 || month > 12)) return ": month " + m[2].str() + " is not 01-12";
  if (day != -1 && (day < 1 || day > days_in(year, month))) {
    return ": day " + m[3].str() + " is not a day of that month (01-" + std::to_string(days_in(year, month)) + ")";
  }
  if (hour > 23) return ": hour " + m[4].str() + " is not 00-23";
  if (minute > 59 || second > 59) return ": minutes and seconds are 00-59";
  return "";
}

}  // namespace

std::string date(const std::string& text) {
  const std::string expected =
      "expected an ISO 8601 date or its prefix (2026, 2026-06, 2026-06-01, 2026-06-01T02:00), got " + quoted(text);
  std::smatch m;
  if (!std::regex_match(text, m, date_form())) return expected;
  const std::string fault = calendar_fault(m);
  return fault.empty() ? fault : expected + fault;
}

std::string day(const std::string& text) {
  static const std::regex whole_day(R"(\d{4}-\d{2}-\d{2})");
  const std::string expected = "expected a day like 2026-06-01 (YYYY-MM-DD), got " + quoted(text);
  std::smatch m;
  if (!std::regex_match(text, whole_day) || !std::regex_match(text, m, date_form())) return expected;
  const std::string fault = calendar_fault(m);
  return fault.empty() ? fault : expected + fault;
}

std::string whole_number(const std::string& text, long long min) {
  const std::string expected = min <= 0 ? "expected a whole number of 0 or more"
                                        : "expected a whole number of " + std::to_string(min) + " or more";
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    return expected + ", got " + quoted(text);
  }
  errno = 0;
  const long long v = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return expected + ", got " + quoted(text) + " (too large)";
  if (v < min) return expected + ", got " + quoted(text);
  return "";
}

std::string one_of(const std::string& text, const std::vector<std::string>& choices) {
  for (const auto& c : choices) {
    if (text == c) return "";
  }
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  }
  return "expected " + list + ", got " + quoted(text);
}

std::string chip(const std::string& text) {
  static const std::regex form(R"([A-Z]{2}\d{2}[0-9A-Z][A-Z]?)");
  if (std::regex_match(text, form)) return "";
  return "expected a chip name as CUPTI spells it (GH100, GA100, AD102, TU104, GB202), got " + quoted(text);
}

std::string not_blank(const std::string& text, const std::string& what) {
  if (text.find_first_not_of(" \t\r\n") != std::string::npos) return "";
  return "expected " + what + ", got " + quoted(text);
}

std::string uuid(const std::string& text) {
  static const std::regex form(R"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
  if (std::regex_match(text, form)) return "";
  return "expected a uuid (8-4-4-4-12 hexadecimal digits, e.g. 5f0c3a1e-8b2d-4c6f-9a01-23456789abcd), got " +
         quoted(text);
}

std::string measured_value(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "expected a finite number";
  // Beyond any measurement: 1e15 ns is 11.6 days of GPU time; no counter of a kernel or a program reaches
  // 1e18. A sample of 1e308 ns would make compare print a 30-digit percentage.
  char shown[40];
  std::snprintf(shown, sizeof shown, "%g", value);
  if (unit == "ns" && value > 1e15)
    return std::string("expected a duration of at most 1e15 ns (11.6 days), got ") + shown;
  if (std::fabs(value) > 1e18)
    return std::string("expected a measured value of at most 1e18 in magnitude, got ") + shown;
  // A time is above 0 (the shortest kernel takes about a microsecond); a sample of 0 ns would read as
  // "-100%, faster". Counts, bytes and percentages may be 0.
  if (unit == "ns" && value <= 0) {
    return std::string("expected a duration above 0 ns, got ") + shown;
  }
  static const char* const non_negative[] = {"ns", "count", "bytes", "%", "GB/s", "GFLOP/s"};
  for (const char* u : non_negative) {
    if (unit == u && value < 0) return "expected a value of 0 or more (" + unit + "), got " + shown;
  }
  return "";
}

}  // namespace gpuperf::rules
