// README.md's metric table ("Profiling metrics") says what core/metrics.cpp's traits table says: the same
// metrics, each with its unit, direction and kind, and the Perfworks names it sums. A change to either
// without the other fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/metrics.hpp"

namespace gpuperf {
namespace {

struct ReadmeRow {
  std::string source, unit, better, deterministic;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The cells of a Markdown table row "| a | b |".
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line.substr(1));
  for (std::string cell; std::getline(in, cell, '|');) out.push_back(trim(cell));
  return out;
}

// The table whose header is "| gpuperf metric | source | unit | better | deterministic |", by metric name.
std::map<std::string, ReadmeRow> readme_metric_table() {
  std::ifstream in(std::string(GPUPERF_SOURCE_DIR) + "/README.md");
  EXPECT_TRUE(in) << "cannot read README.md in " << GPUPERF_SOURCE_DIR;
  std::string line;
  while (std::getline(in, line) && line != "| gpuperf metric | source | unit | better | deterministic |") {
  }
  std::map<std::string, ReadmeRow> rows;
  std::getline(in, line);  // |---|---|...
  while (std::getline(in, line) && line.rfind("|", 0) == 0) {
    const auto c = cells(line);
    EXPECT_EQ(c.size(), 5u) << line;
    if (c.size() != 5) continue;
    EXPECT_EQ(rows.count(c[0]), 0u) << "twice in README's table: " << c[0];
    rows[c[0]] = ReadmeRow{c[1], c[2], c[3], c[4]};
  }
  return rows;
}

TEST(ReadmeMetricTable, HasEveryMetricOfTheTraitsTableAndNoOther) {
  const auto rows = readme_metric_table();
  ASSERT_FALSE(rows.empty()) << "README.md has no metric table";
  std::vector<std::string> in_code, in_readme;
  for (const auto& t : known_metrics()) in_code.push_back(t.info.name);
  for (const auto& [name, row] : rows) {
    in_readme.push_back(name);
    EXPECT_NE(find_metric(name), nullptr) << "README's table lists '" << name << "', which the code does not know";
  }
  std::sort(in_code.begin(), in_code.end());
  EXPECT_EQ(in_readme, in_code);  // the map is sorted by name
}

TEST(ReadmeMetricTable, SaysTheUnitDirectionAndKindOfTheCode) {
  const auto rows = readme_metric_table();
  for (const auto& t : known_metrics()) {
    const auto it = rows.find(t.info.name);
    if (it == rows.end()) continue;  // reported above
    SCOPED_TRACE(t.info.name);
    const ReadmeRow& row = it->second;
    EXPECT_EQ(row.unit, t.info.unit);
    EXPECT_EQ(row.better, t.info.higher_is_better ? "higher" : "lower");
    EXPECT_EQ(row.deterministic, t.info.deterministic ? "yes" : "no");
    // A profiler metric's source names every Perfworks metric summed into it.
    for (const auto& perfworks : t.perfworks) {
      EXPECT_NE(row.source.find("`" + perfworks + "`"), std::string::npos) << row.source;
    }
  }
}

}  // namespace
}  // namespace gpuperf
