#include "kernels/listing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace gpuperf {

std::string format_si(double value, const std::string& unit) {
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
  int p = 0;
  double v = value;
  while (std::abs(v) >= 1000.0 && p < 5) {
    v /= 1000.0;
    ++p;
  }
  char buf[48];
  if (p == 0) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
  }
  std::string out = buf;
  const std::string suffix = std::string(prefixes[p]) + unit;
  if (!suffix.empty()) out += " " + suffix;
  return out;
}

namespace {
double declared(const std::function<double(const Params&)>& f, const Params& p) { return f ? f(p) : 0.0; }
}  // namespace

std::string format_instance_table(const std::vector<InstanceRef>& instances) {
  std::vector<std::array<std::string, 4>> rows;
  rows.push_back({"instance", "bytes", "FLOPs", "baseline"});
  for (const auto& ref : instances) {
    const double bytes = declared(ref.benchmark->bytes, ref.params);
    const double flops = declared(ref.benchmark->flops, ref.params);
    rows.push_back({ref.instance().display_name() + (ref.benchmark->in_default_suite ? "" : " (opt-in)"),
                    bytes > 0 ? format_si(bytes, "B") : "-", flops > 0 ? format_si(flops, "") : "-",
                    ref.benchmark->baseline.empty() ? "-" : ref.benchmark->baseline});
  }
  std::array<std::size_t, 4> w{};
  for (const auto& r : rows) {
    for (std::size_t c = 0; c < 4; ++c) w[c] = std::max(w[c], r[c].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t c = 0; c < 4; ++c) {
      const std::string& cell = r[c];
      const std::string fill(w[c] - cell.size(), ' ');
      line += (c == 1 || c == 2) ? fill + cell : cell + fill;  // numbers right-aligned
      if (c < 3) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += std::to_string(instances.size()) + " instance" + (instances.size() == 1 ? "" : "s") + "\n";
  return out;
}

std::string format_instance_json(const std::vector<InstanceRef>& instances) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& ref : instances) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [k, v] : ref.params) std::visit([&](const auto& x) { params[k] = x; }, v);
    list.push_back({{"name", ref.benchmark->name},
                    {"params", params},
                    {"display_name", ref.instance().display_name()},
                    {"baseline", ref.benchmark->baseline},
                    {"bytes", declared(ref.benchmark->bytes, ref.params)},
                    {"flops", declared(ref.benchmark->flops, ref.params)},
                    {"in_default_suite", ref.benchmark->in_default_suite},
                    {"description", ref.benchmark->description}});
  }
  return nlohmann::json{{"instances", list}}.dump(2) + "\n";
}

}  // namespace gpuperf
