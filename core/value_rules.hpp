// One rule per kind of value a user hands gpuperf, on its command line or in an interchange file, so every
// command accepts and refuses the same things with the same words. Each function returns "" for a valid
// value, else what was expected, for a message "<where>: <this>" (cli/option_kinds.hpp wraps them for
// CLI11; db/interchange_read.cpp calls them for imported files).
#pragma once

#include <string>
#include <vector>

namespace gpuperf::rules {

// `text` as a message quotes it: control characters (C0, DEL, C1) written as JSON escapes (\u001b) and a
// lone byte 0x80-0xBF as \x9b, so a value from a file or a command line cannot drive the terminal.
std::string shown_text(const std::string& text);

// An ISO 8601 date, or a prefix of a date and time, as stored runs' started_at is compared with:
// 2026, 2026-06, 2026-06-01, 2026-06-01T02, 2026-06-01T02:30, 2026-06-01T02:30:00 (a space for T, a Z at the
// end allowed). The calendar holds: month 1-12, a day the month has, hours 0-23, minutes and seconds 0-59.
std::string date(const std::string& text);

// One whole calendar day, YYYY-MM-DD, as date() checks it (a night of a machine: 2026-06-01).
std::string day(const std::string& text);

// A whole number of at least `min` (0 or 1: a count, or an ordinal such as a device).
std::string whole_number(const std::string& text, long long min);

// One of `choices`, spelt exactly.
std::string one_of(const std::string& text, const std::vector<std::string>& choices);

// A GPU chip name as CUPTI spells it: two capital letters, two digits, a digit or a capital letter, and an
// optional capital letter (GH100, GA100, AD102, TU104, GB202, GA10B). Whether CUPTI knows the chip is its
// own question (profile --list-metrics --chip asks it).
std::string chip(const std::string& text);

// Some text, not empty or only blanks: `what` names what it should be ("a reason", "a database location").
std::string not_blank(const std::string& text, const std::string& what);

// A run uuid: 8-4-4-4-12 hexadecimal digits (what gpuperf writes; a run's identity across databases).
std::string uuid(const std::string& text);

// A measured value of a metric in `unit` (gpuperf's or a custom one): finite and at most 1e18 in magnitude,
// above 0 and at most 1e15 for a time (ns), not negative for the other units gpuperf measures (count, bytes,
// %, GB/s, GFLOP/s); any such value for another unit (a raw Perfworks counter's own).
std::string measured_value(double value, const std::string& unit);

}  // namespace gpuperf::rules
