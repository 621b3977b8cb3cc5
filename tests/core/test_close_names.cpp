// "Did you mean": edit distances with known values, and the hints they give for metric names, subcommands
// and option names.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/close_names.hpp"
#include "core/metrics.hpp"

namespace gpuperf {
namespace {

using Names = std::vector<std::string>;

TEST(EditDistance, CountsEachEditOnce) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("report", "report"), 0u);
  EXPECT_EQ(edit_distance("", "list"), 4u);
  EXPECT_EQ(edit_distance("list", ""), 4u);
  EXPECT_EQ(edit_distance("metrcs", "metrics"), 1u);  // an insertion
  EXPECT_EQ(edit_distance("runs", "run"), 1u);        // a deletion
  EXPECT_EQ(edit_distance("rum", "run"), 1u);         // a substitution
  EXPECT_EQ(edit_distance("reprot", "report"), 1u);   // two neighbours swapped: one edit, not two
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);  // optimal string alignment: no edit of a swapped pair
}

TEST(EditDistance, IsSymmetric) {
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"reprot", "report"}, {"detcet", "detect"}, {"gld_eficiency", "gld_efficiency"}, {"x", "export"}}) {
    EXPECT_EQ(edit_distance(a, b), edit_distance(b, a)) << a << " " << b;
  }
}

TEST(CloseNames, FindMetricTypos) {
  Names names;
  for (const auto& t : known_metrics()) names.push_back(t.info.name);
  auto close = close_names("gld_eficiency", names);
  ASSERT_FALSE(close.empty());
  EXPECT_EQ(close.front(), "gld_efficiency");
  auto occ = close_names("occupancy", names);
  ASSERT_FALSE(occ.empty());
  EXPECT_NE(std::find(occ.begin(), occ.end(), "achieved_occupancy"), occ.end());
  EXPECT_TRUE(close_names("zzzzzzzzzzzzzzzzzzzz", names).empty());
  EXPECT_EQ(close_names("shared", names, 2).size(), 2u);  // at most max_results
}

const Names kCommands = {"list",   "run",    "profile", "compare", "check", "detect", "report",
                         "import", "export", "runs",    "db",      "merge", "record"};

TEST(MostSimilar, NamesTheCommandATypoMeant) {
  EXPECT_EQ(most_similar("reprot", kCommands), Names{"report"});
  EXPECT_EQ(most_similar("detcet", kCommands), Names{"detect"});
  EXPECT_EQ(most_similar("lsit", kCommands), Names{"list"});
  EXPECT_EQ(most_similar("rn", kCommands), Names{"run"});
  EXPECT_EQ(most_similar("imprt", kCommands), Names{"import"});
  EXPECT_EQ(most_similar("metrcs", {"filter", "metrics", "seed", "quick"}), Names{"metrics"});
}

TEST(MostSimilar, TiesAreAllNamedInTheGivenOrder) {
  EXPECT_EQ(most_similar("bat", {"cat", "bar", "ball", "bag"}), (Names{"cat", "bar", "bag"}));
  // "port" lies inside "report", "import" and "export" alike.
  EXPECT_EQ(most_similar("port", kCommands), (Names{"report", "import", "export"}));
}

TEST(MostSimilar, NothingWhenNothingIsClose) {
  EXPECT_TRUE(most_similar("x", kCommands).empty());           // inside "export", but one letter is no hint
  EXPECT_TRUE(most_similar("frobnicate", kCommands).empty());  // 6 edits from "profile": too many
  EXPECT_TRUE(most_similar("ab", {"db"}).empty());             // one edit of two letters is half: not meant
  EXPECT_TRUE(most_similar("reprot", {}).empty());
}

}  // namespace
}  // namespace gpuperf
