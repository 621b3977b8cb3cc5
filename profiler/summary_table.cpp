#include "profiler/summary_table.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/short_name.hpp"
#include "profiler/stopping_rule.hpp"

namespace gpuperf {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string pad_right(const std::string& s, std::size_t w) {
  return s + std::string(w > s.size() ? w - s.size() : 0, ' ');
}
std::string pad_left(const std::string& s, std::size_t w) {
  return std::string(w > s.size() ? w - s.size() : 0, ' ') + s;
}

}  // namespace

std::string format_duration_ns(double ns) {
  if (ns < 1e3) return fixed(ns, 0) + " ns";
  if (ns < 1e6) return fixed(ns / 1e3, ns < 1e4 ? 3 : 2) + " us";
  if (ns < 1e9) return fixed(ns / 1e6, 3) + " ms";
  return fixed(ns / 1e9, 3) + " s";
}

std::string format_run_summary(const Run& run) {
  const std::vector<std::string> header{"instance", "median", "+/-", "GB/s", "GFLOP/s", "n", "status"};
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;
  std::size_t counts[5] = {0, 0, 0, 0, 0};
  std::vector<std::string> names;
  for (const auto& r : run.results) names.push_back(r.instance.name);
  const ShortNames short_names(names);
  for (const auto& r : run.results) {
    std::vector<std::string> row(header.size(), "-");
    row[0] = short_names.display_name(r.instance);
    if (const Measurement* d = r.find("duration"); d != nullptr && !d->samples.empty()) {
      row[1] = format_duration_ns(d->summary.median);
      // Relative half-width of the median's ~95% interval: what the stopping rule drove down.
      const double spread = median_relative_spread(d->samples);
      row[2] = spread < 1e9 ? fixed(100.0 * spread, 2) + "%" : "-";
      row[5] = std::to_string(d->summary.n);
    }
    if (const Measurement* g = r.find("gbps"); g != nullptr && !g->samples.empty())
      row[3] = fixed(g->summary.median, 1);
    if (const Measurement* f = r.find("gflops"); f != nullptr && !f->samples.empty())
      row[4] = fixed(f->summary.median, 1);
    row[6] = to_string(r.status);
    counts[static_cast<int>(r.status)]++;
    if (!r.message.empty()) notes.push_back(row[0] + ": " + r.message);
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += "  ";
      // Text columns left-aligned, numbers right-aligned.
      out += (c == 0 || c == cells.size() - 1) ? pad_right(cells[c], width[c]) : pad_left(cells[c], width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  out += "\n" + std::to_string(run.results.size()) + " instances: " + std::to_string(counts[0]) + " ok";
  const Status others[] = {Status::incorrect, Status::failed, Status::unsupported, Status::skipped};
  for (Status s : others) {
    if (counts[static_cast<int>(s)] > 0) out += ", " + std::to_string(counts[static_cast<int>(s)]) + " " + to_string(s);
  }
  out += "\n";
  for (const auto& n : notes) out += "  " + n + "\n";
  return out;
}

}  // namespace gpuperf
