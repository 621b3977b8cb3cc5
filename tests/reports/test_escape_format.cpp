// Escaping of hostile strings and the number/unit formatting the writers share.
#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "reports/analysis/detect.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/svg_chart.hpp"
#include "reports/text_table.hpp"

namespace gpuperf::reports {
namespace {

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
  EXPECT_EQ(html_escape("<script>alert('x')</script>"), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  EXPECT_EQ(html_escape("a\"b&c"), "a&quot;b&amp;c");
  EXPECT_EQ(html_escape("µs ×"), "µs ×");  // valid UTF-8 passes through
}

TEST(HtmlEscape, ReplacesControlCharactersAndInvalidUtf8) {
  EXPECT_EQ(html_escape(std::string("a\x01"
                                    "b")),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(html_escape(std::string("x\xC3")), "x\xEF\xBF\xBD");                                // truncated sequence
  EXPECT_EQ(html_escape(std::string("\xC0\xBC")), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong '<'
  EXPECT_EQ(html_escape(std::string("\xED\xA0\x80")), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(html_escape("tab\tnewline\n"), "tab\tnewline\n");
}

TEST(XmlEscape, GivesWellFormedXml10) {
  EXPECT_EQ(xml_escape("<a b='1'>\"&</a>"), "&lt;a b=&#39;1&#39;&gt;&quot;&amp;&lt;/a&gt;");
  // XML 1.0 has no character for most control bytes, not even as a reference; invalid UTF-8 is not XML.
  EXPECT_EQ(xml_escape(std::string("a\x01\x1F"
                                   "b\xC3")),
            "a\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("µs\ttab\n"), "µs\ttab\n");
}

TEST(JsonString, CannotCloseTheScriptElement) {
  const std::string s = json_string("</script><!--\"\\\n\xE2\x80\xA8");
  EXPECT_EQ(s, "\"\\u003c/script\\u003e\\u003c!--\\\"\\\\\\n\\u2028\"");
  EXPECT_EQ(s.find('<'), std::string::npos);
}

TEST(MarkdownEscape, PipesBackticksTagsAndNewlinesCannotBreakATable) {
  const std::string s = md_escape("a|b`c`<img src=x onerror=alert(1)>\nnext *em* [link](http://x) ~~s~~");
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_EQ(s.find('<'), std::string::npos);
  EXPECT_EQ(s, "a\\|b\\`c\\`&lt;img src=x onerror=alert(1)> next \\*em\\* \\[link\\](http://x) \\~\\~s\\~\\~");
  // Every pipe is escaped, so a table row keeps its columns.
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '|') {
      EXPECT_EQ(s[i - 1], '\\');
    }
  }
  EXPECT_EQ(md_escape("matmul/tiled[n=1024,tile=16]"), "matmul/tiled\\[n=1024,tile=16\\]");
}

// A command in a code span reads back byte for byte: regex escapes stay single, backticks cannot end it early.
TEST(MarkdownCode, ACommandIsCopiedAsItReads) {
  EXPECT_EQ(md_code("gpuperf run --filter '^memory/coalesced\\[n=16\\]$'"),
            "`gpuperf run --filter '^memory/coalesced\\[n=16\\]$'`");
  EXPECT_EQ(md_code("echo `date` ``x``"), "``` echo `date` ``x`` ```");
  EXPECT_EQ(md_code("`a`"), "`` `a` ``");
  EXPECT_EQ(md_code("a\nb"), "`a b`");
}

// A shortened name ("MeanOps<…>": 10 characters on screen, 12 bytes) pads like what it shows: the next column
// starts where the header's does, so a name copied from the table ends where it should.
TEST(TextTable, ColumnsLineUpAsTheTerminalShowsThem) {
  std::ostringstream out;
  write_table(out, {"benchmark", "metric"}, {{"MeanOps<…>", "duration"}, {"plain", "launches"}}, nullptr, "  ");
  EXPECT_EQ(out.str(),
            "  benchmark   metric\n"
            "  MeanOps<…>  duration\n"
            "  plain       launches\n");
  EXPECT_EQ(terminal_width("é…x"), 3u);
}

TEST(Format, ValuesInReadableUnits) {
  EXPECT_EQ(format_value(277536, "ns"), "277.5 µs");
  EXPECT_EQ(format_value(1250000, "ns"), "1.25 ms");
  EXPECT_EQ(format_value(999, "ns"), "999 ns");
  EXPECT_EQ(format_value(2.5e9, "ns"), "2.5 s");
  EXPECT_EQ(format_value(56.25, "%"), "56.25%");
  EXPECT_EQ(format_value(12.5, "%"), "12.5%");
  EXPECT_EQ(format_value(50400000, "count"), "50.4 M");
  EXPECT_EQ(format_value(32, "count"), "32");
  EXPECT_EQ(format_value(67108864, "bytes"), "67.11 MB");  // decimal, as compare and detect show it
  EXPECT_EQ(format_value(261.9e6, "bytes"), format_value(261.9e6, "bytes", UnitText::terminal));  // one unit everywhere
  EXPECT_EQ(format_value(1234.56, "GB/s"), "1235 GB/s");
  EXPECT_EQ(format_value(0, "ns"), "0 ns");
  EXPECT_EQ(format_number(0.125), "0.125");
  EXPECT_EQ(format_number(-3.0), "-3");
}

// One implementation, two spellings: the terminal's tables and hints stay ASCII and keep small counts whole.
TEST(Format, TerminalSpellingOfTheSameValues) {
  EXPECT_EQ(format_value(277536, "ns", UnitText::terminal), "277.5 us");
  EXPECT_EQ(format_value(50400000, "count", UnitText::terminal), "50.4M");
  EXPECT_EQ(format_value(12345, "count", UnitText::terminal), "12.35k");
  EXPECT_EQ(format_value(1234.5, "count", UnitText::terminal), "1234.5");  // below 10,000: up to 6 digits
  EXPECT_EQ(format_value(1234.5, "count"), "1234");                        // the report's 4 (round half to even)
  EXPECT_EQ(format_value(1234.56, "GB/s", UnitText::terminal), format_value(1234.56, "GB/s"));
}

TEST(Format, ChangesRatiosCommitsDates) {
  EXPECT_EQ(format_change_pct(12.34), "+12.3%");
  EXPECT_EQ(format_change_pct(-4.0), "-4.0%");
  EXPECT_EQ(format_change_pct(-0.01), "+0.0%");  // no negative zero
  EXPECT_EQ(format_change_pct(250), "+250%");
  EXPECT_EQ(format_ratio(4.2857), "4.29×");
  EXPECT_EQ(format_ratio(12.34), "12.3×");
  EXPECT_EQ(short_commit("0123456789abcdef"), "0123456789");
  EXPECT_EQ(short_commit("abc"), "abc");
  EXPECT_EQ(format_datetime("2026-11-01T02:00:00Z"), "2026-11-01 02:00");
  EXPECT_EQ(format_date("2026-11-01T02:00:00Z"), "2026-11-01");
  EXPECT_EQ(format_datetime("yesterday"), "yesterday");
}

TEST(Sparkline, BucketsAndScales) {
  EXPECT_EQ(sparkline({1, 2, 3, 4, 5, 6, 7, 8}), "▁▂▃▄▅▆▇█");
  EXPECT_EQ(sparkline({5, 5, 5}), "▄▄▄");  // flat: mid height
  EXPECT_EQ(sparkline({}), "");
  // Noise below 5% of the level stays near the middle instead of filling the height.
  const std::string noisy = sparkline({100, 100.5, 99.5, 100.2});
  EXPECT_EQ(noisy.find("▁"), std::string::npos);
  EXPECT_EQ(noisy.find("█"), std::string::npos);
  // 100 values in 10 buckets: 10 characters (3 bytes each), rising.
  std::vector<double> ramp;
  for (int i = 0; i < 100; ++i) ramp.push_back(i);
  const std::string s = sparkline(ramp, 10);
  EXPECT_EQ(s.size(), 30u);
  EXPECT_EQ(s.substr(0, 3), "▁");
  EXPECT_EQ(s.substr(27, 3), "█");
}

TEST(Ticks, NiceStepsCoverTheRange) {
  AxisTicks t = nice_ticks(0.3, 9.7);
  EXPECT_DOUBLE_EQ(t.step, 2);  // 1, 2 or 5 times a power of ten, never 2.5
  EXPECT_DOUBLE_EQ(t.lo, 0);
  EXPECT_DOUBLE_EQ(t.hi, 10);
  EXPECT_EQ(t.values.size(), 6u);
  t = nice_ticks(277000, 281000);
  EXPECT_DOUBLE_EQ(t.step, 1000);
  EXPECT_LE(t.lo, 277000);
  EXPECT_GE(t.hi, 281000);
  t = nice_ticks(100, 100);  // a flat series gets a visible range around its value
  EXPECT_LT(t.lo, 100);
  EXPECT_GT(t.hi, 100);
  EXPECT_EQ(x_tick_runs(3).size(), 3u);
  const auto xs = x_tick_runs(365);
  EXPECT_EQ(xs.size(), 6u);
  EXPECT_EQ(xs.front(), 0u);
  EXPECT_EQ(xs.back(), 364u);
}

// The value axis of a chart of bytes: round numbers of the unit it shows (MB), in 1-2-5 steps, where ticks
// chosen in bytes and shown in MiB read 47.6837, 95.3674.
TEST(Ticks, AChartsTicksAreRoundInTheUnitItShows) {
  const std::vector<RunRef> runs(4);
  for (const auto& [lo, hi] : {std::pair{249.9e6, 261.9e6}, std::pair{0.0, 261.9e6}, std::pair{31.2e3, 47.9e3}}) {
    ChartSpec spec;
    spec.unit = "bytes";
    spec.runs = &runs;
    spec.lines.push_back({"", 0, {{0, lo}, {1, hi}, {2, lo}, {3, hi}}, {}});
    const std::string svg = render_chart(spec);
    const std::size_t start = svg.find("<g class=\"ticks y\">");
    ASSERT_NE(start, std::string::npos);
    const std::string axis = svg.substr(start, svg.find("</g>", start) - start);
    std::vector<double> labels;
    const std::regex label("<text[^>]*>([^<]*)</text>");
    for (auto it = std::sregex_iterator(axis.begin(), axis.end(), label); it != std::sregex_iterator(); ++it) {
      labels.push_back(std::stod((*it)[1].str()));
    }
    ASSERT_GE(labels.size(), 3u) << axis;
    const double step = labels[1] - labels[0];
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step)));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
        << "step " << step << " in " << axis;
    for (double v : labels) EXPECT_NEAR(v / step, std::round(v / step), 1e-6) << v << " in " << axis;
    EXPECT_NE(svg.find(lo < 1e6 && hi < 1e6 ? ">kB</text>" : ">MB</text>"), std::string::npos) << svg;
  }
}

TEST(Ticks, AChartSpansAtLeastAFewPercentOfItsLevel) {
  // An unchanged kernel jittering by +-0.5% around 55 us: the axis spans 4% of the level (2.2 us), not the
  // 0.55 us of the data, so the jitter fills a quarter of the height instead of all of it.
  auto [lo, hi] = value_domain(54.86e3, 55.14e3, kMinRelativeSpan, false);
  EXPECT_NEAR(hi - lo, 0.04 * 55.14e3, 1e-6);
  EXPECT_NEAR((lo + hi) / 2, 55e3, 1e-6);
  // A 20% step spans more than that already: left alone.
  std::tie(lo, hi) = value_domain(55e3, 66e3, kMinRelativeSpan, false);
  EXPECT_DOUBLE_EQ(lo, 55e3);
  EXPECT_DOUBLE_EQ(hi, 66e3);
  // 100% efficiency every run: the axis stays at or below 100% and spans 4 points.
  std::tie(lo, hi) = value_domain(100, 100, kMinRelativeSpan, true);
  EXPECT_DOUBLE_EQ(hi, 100);
  EXPECT_DOUBLE_EQ(lo, 96);
  // Counts near 0 never get a negative axis.
  std::tie(lo, hi) = value_domain(0, 0.01, 4.0, false);
  EXPECT_GE(lo, 0);
  EXPECT_NEAR(hi - lo, 0.04, 1e-12);
  // Rendered: the tick labels of a jittering 55 us series span at least 2 us.
  const std::vector<RunRef> runs(3);
  ChartSpec spec;
  spec.unit = "ns";
  spec.runs = &runs;
  ChartLine line;
  line.points = {{0, 54.9e3}, {1, 55.1e3}, {2, 55.0e3}};
  spec.lines.push_back(line);
  const std::string svg = render_chart(spec);
  std::vector<double> labels;
  const std::string open = "<g class=\"ticks y\">";
  std::size_t at = svg.find(open);
  ASSERT_NE(at, std::string::npos);
  at += open.size();
  const std::size_t end = svg.find("</g>", at);
  while ((at = svg.find("\">", at + 1)) < end) labels.push_back(std::stod(svg.substr(at + 2)));
  ASSERT_GE(labels.size(), 2u) << svg;
  const auto [mn, mx] = std::minmax_element(labels.begin(), labels.end());
  EXPECT_GE(*mx - *mn, 2.0) << svg;  // microseconds
}

}  // namespace
}  // namespace gpuperf::reports
