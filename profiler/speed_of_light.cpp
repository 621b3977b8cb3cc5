#include "profiler/speed_of_light.hpp"

#include <algorithm>

namespace gpuperf {

const char* const kTriageSm = "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kTriageL1tex = "SM_A.TriageCompute.l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kTriageLts = "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed";
const char* const kTriageDramc = "FBSP.TriageCompute.dramc__throughput.avg.pct_of_peak_sustained_elapsed";

bool is_triage_name(const std::string& perfworks) { return perfworks.find("TriageCompute.") != std::string::npos; }

namespace {

bool has(const std::vector<std::string>& names, const char* name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Appends `name` unless already there (a list asked with both sm_throughput and sol_sm_triage).
void add_once(std::vector<std::string>& out, const std::string& name) {
  if (!has(out, name.c_str())) out.push_back(name);
}

}  // namespace

std::vector<std::string> with_triage_names(const std::vector<std::string>& names, const AcceptsMetric& accepts) {
  std::vector<std::string> alt;
  for (const std::string& n : names) {
    if (n == "sm_throughput") {
      if (accepts(kTriageSm)) add_once(alt, "sol_sm_triage");
    } else if (n == "memory_throughput") {
      if (accepts(kTriageL1tex)) add_once(alt, "sol_l1tex_triage");
      if (accepts(kTriageLts)) add_once(alt, "sol_lts_triage");
      if (accepts(kTriageDramc)) add_once(alt, "sol_dramc_triage");
    } else {
      add_once(alt, n);
    }
  }
  return alt;
}

std::vector<std::string> speed_of_light_names(const std::vector<std::string>& names, const AcceptsMetric& accepts,
                                              const PassesOfList& passes) {
  if (!has(names, "sm_throughput") && !has(names, "memory_throughput")) return names;
  if (!accepts(kTriageSm)) return names;
  std::vector<std::string> alt = with_triage_names(names, accepts);
  return passes(alt) < passes(names) ? alt : names;
}

std::vector<std::string> choose_speed_of_light(const std::vector<std::string>& today,
                                               const std::vector<std::string>& triage, const AcceptsMetric& accepts,
                                               const PassesOfList& passes) {
  if (triage.empty() || triage == today || !accepts(kTriageSm)) return today;
  std::vector<std::string> alt;
  for (const std::string& n : triage) {
    if (!is_triage_name(n) || accepts(n)) alt.push_back(n);
  }
  return passes(alt) < passes(today) ? alt : today;
}

}  // namespace gpuperf
