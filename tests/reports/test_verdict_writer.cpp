// The compare/detect writers: golden text and Markdown, JSON names, JUnit, and escaping of hostile names.
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/metrics.hpp"
#include "reports/analysis/gate.hpp"
#include "reports/escape.hpp"
#include "reports/verdict_writer.hpp"

namespace gpuperf::reports {

using namespace gpuperf::analysis;

namespace {

CompareRow row(const std::string& name, Params params, const std::string& metric, Verdict v, double b, double c,
               const std::string& note = "") {
  CompareRow r;
  r.machine = "GPU-1234";
  r.instance = {name, std::move(params)};
  r.metric = metric_info_for(metric);
  r.verdict = v;
  Summary sb, sc;
  sb.n = sc.n = 40;
  sb.median = b;
  sc.median = c;
  r.base = sb;
  r.candidate = sc;
  r.change_pct = (c / b - 1) * 100;
  r.p_value = v == Verdict::slower ? 1e-12 : 0.5;
  r.ci_low_pct = r.change_pct - 1;
  r.ci_high_pct = r.change_pct + 1;
  r.note = note;
  r.gated = GateSet{}.gates(r.metric);  // as compare_measurement() sets it
  return r;
}

CompareReport report() {
  CompareReport rep;
  rep.base = {1,
              "aa000000-0000-4000-8000-000000000001",
              "1194d3c67a0000000000",
              "main",
              "nightly",
              "2026-10-23T02:00:00Z",
              "GPU-1234",
              "NVIDIA H200",
              "NVIDIA H200 (GPU-1234)",
              std::nullopt,
              std::nullopt,
              std::nullopt,
              ""};
  rep.candidate = {2,
                   "cc000000-0000-4000-8000-000000000002",
                   "56afdfdc2a1111111111",
                   "feature",
                   "",
                   "2026-10-24T04:00:00Z",
                   "GPU-1234",
                   "NVIDIA H200",
                   "NVIDIA H200 (GPU-1234)",
                   std::nullopt,
                   std::nullopt,
                   std::nullopt,
                   ""};
  rep.rows.push_back(row("matmul/tiled", {{"n", std::int64_t{1024}}}, "duration", Verdict::slower, 277536, 327500,
                         "with registers 32 -> 40"));
  rep.rows.push_back(row("matmul/tiled", {{"n", std::int64_t{1024}}}, "registers", Verdict::slower, 32, 40));
  rep.rows.push_back(row("copy/coalesced", {}, "duration", Verdict::same, 160200, 160300));
  CompareRow gone = row("copy/old", {}, "duration", Verdict::missing, 1000, 0);
  gone.candidate.reset();
  rep.rows.push_back(gone);
  return rep;
}

std::string compare_text(Format f, bool all = false) {
  std::ostringstream out;
  write_compare(out, report(), f, all);
  return out.str();
}

TEST(Render, CompareTextGolden) {
  EXPECT_EQ(compare_text(Format::text),
            "base       aa000000 (#1)  main @ 1194d3c67a  [nightly]  2026-10-23T02:00:00Z  NVIDIA H200 (GPU-1234)\n"
            "candidate  cc000000 (#2)  feature @ 56afdfdc2a  2026-10-24T04:00:00Z  NVIDIA H200 (GPU-1234)\n"
            "\n"
            "benchmark             metric     base      candidate  change  verdict  gates  note\n"
            "matmul/tiled[n=1024]  duration   277.5 us  327.5 us   +18.0%  slower   yes    with registers 32 -> 40\n"
            "matmul/tiled[n=1024]  registers  32        40         +25.0%  slower   yes\n"
            "copy/old              duration   1 us      -                  missing  yes\n"
            "\n"
            "4 rows: 2 slower, 1 missing, 1 same (1 same not listed; --all lists them)\n"
            "1 benchmark instance of the base is missing from the candidate (copy/old): a partial candidate fails; "
            "--allow-missing allows it\n"
            "gate: duration, failed or incorrect kernels, deterministic counters\n"
            "REGRESSION\n");
}

TEST(Render, CompareMarkdownGolden) {
  EXPECT_EQ(compare_text(Format::md, true),
            "### gpuperf compare: regression\n"
            "\n"
            "Base `1194d3c67a` (main, run aa000000) against candidate `56afdfdc2a` (feature, run cc000000) on "
            "NVIDIA H200.\n"
            "\n"
            "| benchmark | metric | base | candidate | change | verdict | gates | note |\n"
            "| --- | --- | ---: | ---: | ---: | --- | --- | --- |\n"
            "| matmul/tiled\\[n=1024\\] | duration | 277.5 us | 327.5 us | +18.0% | **slower** | yes | with registers "
            "32 -> 40 |\n"
            "| matmul/tiled\\[n=1024\\] | registers | 32 | 40 | +25.0% | **slower** | yes |  |\n"
            "| copy/coalesced | duration | 160.2 us | 160.3 us | +0.1% | same | yes |  |\n"
            "| copy/old | duration | 1 us | - |  | missing | yes |  |\n"
            "\n"
            "4 rows: 2 slower, 1 missing, 1 same.\n"
            "\n"
            "1 benchmark instance of the base is missing from the candidate (copy/old): a partial candidate fails; "
            "--allow-missing allows it.\n"
            "\n"
            "Gate: duration, failed or incorrect kernels, deterministic counters.\n");
}

TEST(Render, CompareJson) {
  const nlohmann::json j = nlohmann::json::parse(compare_text(Format::json));
  EXPECT_TRUE(j["regression"].get<bool>());
  EXPECT_EQ(j["summary"]["slower"], 2);
  EXPECT_EQ(j["base"]["run"], "aa000000-0000-4000-8000-000000000001");
  ASSERT_EQ(j["rows"].size(), 4u);
  const auto& r = j["rows"][0];
  EXPECT_EQ(r["benchmark"], "matmul/tiled");
  EXPECT_EQ(r["params"]["n"], 1024);
  EXPECT_EQ(r["commit"], "56afdfdc2a1111111111");
  EXPECT_EQ(r["previous_commit"], "1194d3c67a0000000000");
  EXPECT_EQ(r["run"], "cc000000-0000-4000-8000-000000000002");
  EXPECT_EQ(r["kind"], "regression");
  EXPECT_EQ(r["verdict"], "slower");
  EXPECT_EQ(r["before"], 277536.0);
  EXPECT_EQ(r["confidence"], 1 - 1e-12);
  EXPECT_TRUE(j["rows"][2]["kind"].is_null());
  EXPECT_TRUE(j["rows"][3]["after"].is_null());
  EXPECT_TRUE(j["rows"][3]["change_pct"].is_null());
}

ChangePoint change(const std::string& name, const std::string& metric, double before, double after, ChangeKind k) {
  ChangePoint c;
  c.machine = "GPU-1234";
  c.instance = {name, {{"tile", std::int64_t{16}}}};
  c.metric = metric_info_for(metric);
  c.run_uuid = "aa000000-0000-4000-8000-000000000016";
  c.commit = "795ceee0b6aaaaaaaaaa";
  c.previous_commit = "1194d3c67abbbbbbbbbb";
  c.before = before;
  c.after = after;
  c.change_pct = (after / before - 1) * 100;
  c.kind = k;
  c.confidence = 0.9995;
  c.gated = GateSet{}.gates(c.metric);
  return c;
}

TEST(Render, ChangesTextAndMarkdownGolden) {
  std::vector<ChangePoint> cs{change("matmul/tiled", "duration", 278500, 328500, ChangeKind::regression),
                              change("memory_access/strided", "duration", 1.106e6, 997300, ChangeKind::improvement)};
  cs[0].hints = {"gld_efficiency 100% -> 50%", "registers 32 -> 40"};
  cs[1].unconfirmed = true;  // two runs at the new level so far
  cs[1].runs_after = 2;
  std::ostringstream text, md;
  write_changes(text, cs, Format::text);
  write_changes(md, cs, Format::md);
  EXPECT_EQ(
      text.str(),
      "machine  GPU-1234\n"
      "\n"
      "benchmark                       metric    change  before    after     commit      previous    kind         "
      "confidence  state                 gates\n"
      "matmul/tiled[tile=16]           duration  +18.0%  278.5 us  328.5 us  795ceee0b6  1194d3c67a  regression   "
      "0.9995      confirmed             yes\n"
      "    with: gld_efficiency 100% -> 50%, registers 32 -> 40\n"
      "memory_access/strided[tile=16]  duration  -9.8%   1.106 ms  997.3 us  795ceee0b6  1194d3c67a  improvement  "
      "0.9995      unconfirmed (2 runs)  yes\n"
      "\n"
      "2 findings: 1 regression (gates), 1 improvement; from 2 change points, 1 unconfirmed (fewer runs at the new "
      "level than --min-segment: flagged from tonight's samples, the next runs confirm or withdraw them)\n");
  EXPECT_EQ(
      md.str(),
      "### gpuperf detect: 2 findings: 1 regression (gates), 1 improvement; from 2 change points, 1 unconfirmed (fewer "
      "runs at the new level than --min-segment: flagged from tonight's samples, the next runs confirm or withdraw "
      "them)\n"
      "\n"
      "| benchmark | metric | change | before | after | commit | previous | kind | confidence | state | gates | hints "
      "|\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
      "| matmul/tiled\\[tile=16\\] | duration | +18.0% | 278.5 us | 328.5 us | 795ceee0b6 | 1194d3c67a | "
      "**regression** | 0.9995 | confirmed | yes | gld\\_efficiency 100% -> 50%, registers 32 -> 40 |\n"
      "| memory\\_access/strided\\[tile=16\\] | duration | -9.8% | 1.106 ms | 997.3 us | 795ceee0b6 | 1194d3c67a | "
      "improvement | 0.9995 | unconfirmed (2 runs) | yes |  |\n");
}

TEST(Render, ChangesJsonNames) {
  std::ostringstream out;
  write_changes(out, {change("matmul/tiled", "registers", 32, 40, ChangeKind::regression)}, Format::json);
  const auto j = nlohmann::json::parse(out.str());
  ASSERT_EQ(j["changes"].size(), 1u);
  for (const char* key : {"machine", "benchmark", "params", "metric", "commit", "previous_commit", "run", "kind",
                          "change_pct", "before", "after", "confidence", "unconfirmed", "runs_after"}) {
    EXPECT_TRUE(j["changes"][0].contains(key)) << key;
  }
  EXPECT_EQ(j["changes"][0]["kind"], "regression");
  EXPECT_EQ(j["changes"][0]["unconfirmed"], false);
  EXPECT_EQ(j["changes"][0]["change_pct"], 25.0);
  std::ostringstream empty;
  write_changes(empty, {}, Format::json);
  EXPECT_EQ(nlohmann::json::parse(empty.str()), nlohmann::json::parse(R"({"changes": [], "not_enough_data": []})"));
}

TEST(Render, HostileNamesAreEscaped) {
  CompareReport rep = report();
  rep.rows[0].instance = {"evil/<script>|x", {{"q", std::string("a\"b&c")}}};
  rep.rows[0].note = "line\nbreak | *bold*";
  std::ostringstream md, xml;
  write_compare(md, rep, Format::md, true);
  write_compare_junit(xml, rep);
  EXPECT_EQ(md.str().find("<script>"), std::string::npos);
  EXPECT_NE(md.str().find("evil/&lt;script>\\|x"), std::string::npos) << md.str();  // no tag can open
  EXPECT_NE(md.str().find("line break \\| \\*bold\\*"), std::string::npos) << md.str();
  EXPECT_EQ(xml.str().find("<script>"), std::string::npos);
  EXPECT_NE(xml.str().find("classname=\"evil/&lt;script&gt;|x[q=a&quot;b&amp;c]\""), std::string::npos) << xml.str();
}

// The tables use the writers' escapers (reports/escape.hpp): what a report escapes, they escape alike.
TEST(Render, EscapesAsTheReportWritersDo) {
  CompareReport rep = report();
  // An image, a truncated and a control byte (no parameter list: the tables show names without one).
  const std::string hostile = "img![x]:http://e/ \xC3 \x01|end";
  rep.rows[0].instance = {hostile, {}};
  std::ostringstream md, xml;
  write_compare(md, rep, Format::md, true);
  write_compare_junit(xml, rep);
  EXPECT_NE(md.str().find("| " + reports::md_escape(hostile) + " |"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("img\\!\\[x\\]:http://e/ \xEF\xBF\xBD \xEF\xBF\xBD\\|end"), std::string::npos) << md.str();
  EXPECT_NE(xml.str().find("classname=\"" + reports::xml_escape(hostile) + "\""), std::string::npos) << xml.str();
  EXPECT_NE(xml.str().find("classname=\"img![x]:http://e/ \xEF\xBF\xBD \xEF\xBF\xBD|end\""), std::string::npos)
      << xml.str();
}

TEST(Render, JUnitCounts) {
  std::ostringstream xml;
  CompareReport allowed = report();
  allowed.allow_missing = true;  // the missing instance fails the job on its own case otherwise (below)
  write_compare_junit(xml, allowed);
  const std::string s = xml.str();
  std::ostringstream strict;
  write_compare_junit(strict, report());
  EXPECT_NE(strict.str().find("tests=\"5\" failures=\"3\" errors=\"0\" skipped=\"1\">"), std::string::npos)
      << strict.str();
  EXPECT_NE(strict.str().find("<failure type=\"missing\" message=\"1 benchmark instance of the base is missing"),
            std::string::npos)
      << strict.str();
  EXPECT_NE(s.find("<testsuites name=\"gpuperf compare\" tests=\"4\" failures=\"2\" errors=\"0\" skipped=\"1\">"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("<skipped message=\"missing\"/>"), std::string::npos) << s;
  std::ostringstream none;
  write_changes_junit(none, {}, 12);
  EXPECT_NE(none.str().find("no change points in 12 series"), std::string::npos);
}

TEST(Render, ParseFormat) {
  EXPECT_EQ(parse_format("md"), Format::md);
  EXPECT_EQ(parse_format("markdown"), Format::md);
  EXPECT_THROW(parse_format("html"), InputError);
}

}  // namespace
}  // namespace gpuperf::reports
