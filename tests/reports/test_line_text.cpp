// The wording of source lines in findings (reports/line_text.hpp) and how each writer carries them: exact
// text, Markdown that escapes a line's text, JSON fields, bisect's three formats.
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/metrics.hpp"
#include "reports/bisect_writer.hpp"
#include "reports/line_text.hpp"
#include "reports/verdict_writer.hpp"

namespace gpuperf::reports {
namespace {

using namespace gpuperf::analysis;

// The load line of copy_coalesced before and after bench/detect/patches/lose_coalescing.patch.
LineChange lost_coalescing(const std::string& text = "if (i < n) out[j] = in[j];") {
  LineChange c;
  c.line.file = "kernels/memory_access.cu";
  c.line.line = 29;
  c.line.function = "copy_coalesced";
  c.line.text = text;
  c.was_line = 23;
  c.counters.push_back({"global_ld_sectors_per_request", "global load sectors per request", true, 4.0, 8.0, 4.0});
  c.weight = 0.5;
  return c;
}

TEST(LineText, NamesThePlaceTheTextAndWhatMoved) {
  EXPECT_EQ(line_change_text(lost_coalescing()),
            "kernels/memory_access.cu:29 (was :23)  if (i < n) out[j] = in[j];  global load sectors per request 4.0 "
            "-> 8.0 (ideal 4.0)");
  LineChange fma;
  fma.line.file = "kernels/matmul.cu";
  fma.line.line = 26;
  fma.line.text = "sum += a * b;";
  fma.counters.push_back({"inst_executed", "warp instructions", false, 201326592, 234881024, std::nullopt});
  EXPECT_EQ(line_change_text(fma), "kernels/matmul.cu:26  sum += a * b;  warp instructions 201.3M -> 234.9M");
  // Without line info: the function and SASS offset; a new line shows its counters as they are.
  LineChange triton;
  triton.line.function = "triton_poi_fused_add_0";
  triton.line.sass_offset = 0x1f0;
  triton.is_new = true;
  triton.counters.push_back({"inst_executed", "warp instructions", false, 0, 4096, std::nullopt});
  EXPECT_EQ(line_change_text(triton), "triton_poi_fused_add_0+0x1f0 (new line)  warp instructions 4096");
}

CompareReport report_with_lines(const std::string& text) {
  CompareReport rep;
  rep.base.commit = "aaaa";
  rep.candidate.commit = "bbbb";
  CompareRow r;
  r.machine = "GPU-1";
  r.instance = {"memory/coalesced", {{"n", std::int64_t{16777216}}}};
  r.metric = metric_info_for("duration");
  r.verdict = Verdict::slower;
  Summary a, b;
  a.n = b.n = 10;
  a.median = 160000;
  b.median = 290000;
  r.base = a;
  r.candidate = b;
  r.change_pct = 81.25;
  r.lines = {lost_coalescing(text)};
  rep.rows.push_back(r);
  return rep;
}

TEST(LineText, MarkdownEscapesTheLineAndJsonCarriesItsFields) {
  std::ostringstream md;
  write_compare(md, report_with_lines("x = a | b; // <script>alert(1)</script> `tick`"), Format::md);
  EXPECT_NE(md.str().find("Source lines that moved:\n\n- **memory/coalesced\\[n=16777216\\]** duration:\n  - "
                          "kernels/memory\\_access.cu:29 (was :23)  x = a \\| b; // &lt;script>alert(1)&lt;/script> "
                          "\\`tick\\`"),
            std::string::npos)
      << md.str();
  EXPECT_EQ(md.str().find("<script>"), std::string::npos);

  std::ostringstream js;
  write_compare(js, report_with_lines("if (i < n) out[j] = in[j];"), Format::json);
  const auto j = nlohmann::json::parse(js.str());
  const auto& line = j["rows"][0]["lines"][0];
  EXPECT_EQ(line["file"], "kernels/memory_access.cu");
  EXPECT_EQ(line["line"], 29);
  EXPECT_EQ(line["was_line"], 23);
  EXPECT_EQ(line["new"], false);
  EXPECT_EQ(line["counters"][0]["counter"], "global_ld_sectors_per_request");
  EXPECT_EQ(line["counters"][0]["ideal"], 4.0);

  std::ostringstream text;
  write_compare(text, report_with_lines("if (i < n) out[j] = in[j];"), Format::text);
  EXPECT_NE(text.str().find("\n    kernels/memory_access.cu:29 (was :23)  if (i < n) out[j] = in[j];  global load"),
            std::string::npos)
      << text.str();
}

TEST(LineText, BisectNamesTheLinesAtTheCulprit) {
  BisectReport r;
  r.good = "1111111111111111";
  r.bad = "2222222222222222";
  r.metric = "duration";
  r.filter = "memory/coalesced";
  r.lines.push_back({"memory/coalesced[n=16777216]", {lost_coalescing()}});
  std::ostringstream text, md, js;
  write_bisect_text(text, r);
  write_bisect_markdown(md, r);
  write_bisect_json(js, r);
  EXPECT_NE(text.str().find("line: memory/coalesced[n=16777216]  kernels/memory_access.cu:29 (was :23)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(md.str().find("Source lines of memory/coalesced\\[n=16777216\\] that moved:\n\n- kernels/memory\\_access"),
            std::string::npos)
      << md.str();
  const auto j = nlohmann::json::parse(js.str());
  EXPECT_EQ(j["lines"][0]["instance"], "memory/coalesced[n=16777216]");
  EXPECT_EQ(j["lines"][0]["lines"][0]["line"], 29);
}

}  // namespace
}  // namespace gpuperf::reports
