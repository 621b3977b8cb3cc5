// A metric value as text, in its unit scaled for reading: one implementation for every writer. Reports
// (HTML, Markdown) spell units in Unicode ("277.5 µs", "50.4 M"); terminal tables and hints stay ASCII
// ("277.5 us", "50.4M"), so a text table's columns line up by bytes. Deterministic (C locale, no clock).
#pragma once

#include <string>

namespace gpuperf {

// Which spelling of the scaled units.
enum class UnitText {
  report,    // "277.5 µs", "50.4 M", "67.11 MB", "56.25%"
  terminal,  // "277.5 us", "50.4M",  "67.11 MB", "56.25%"; counts below 10,000 with up to 6 digits
};

// How values of a metric unit are shown for a given magnitude: ns -> µs/ms/s, bytes -> kB/MB/GB (decimal,
// as GB/s and ncu count them), count -> k/M/G (counts below 10,000 read best in full); other units (%,
// GB/s, ...) are shown as they are.
struct UnitScale {
  double divisor = 1;
  std::string unit;  // the display unit, "" for a plain count
};
UnitScale scale_for(const std::string& unit, double magnitude, UnitText text = UnitText::report);

// `v` with about `significant` significant digits, no exponent, trailing zeros trimmed: 277.5, 0.125, 12000;
// "n/a", "inf", "-inf" for what is not finite.
std::string format_number(double v, int significant = 4);

// A value in its metric unit, scaled for reading: "277.5 µs", "56.25%", "50.4 M", "67.11 MB", "1235 GB/s".
std::string format_value(double v, const std::string& unit, UnitText text = UnitText::report);

}  // namespace gpuperf
