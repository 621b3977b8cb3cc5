// The JUnit XML writer of compare, check and detect (verdict_writer.hpp): a test case per row or per change.
#include <ostream>

#include "core/value_text.hpp"
#include "reports/escape.hpp"
#include "reports/format.hpp"
#include "reports/line_text.hpp"
#include "reports/program_text.hpp"
#include "reports/verdict_parts.hpp"
#include "reports/verdict_writer.hpp"

namespace gpuperf::reports {

using namespace gpuperf::analysis;

namespace {

std::string xml(const std::string& s) { return reports::xml_escape(s); }

// A row's moved source lines, appended to its test case's message.
std::string lines_detail(const std::vector<LineChange>& lines) {
  std::string s;
  for (const LineChange& l : lines) s += "; " + line_change_text(l);
  return s;
}

}  // namespace

void write_compare_junit(std::ostream& out, const CompareReport& report) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  for (const auto& r : report.rows) {
    if (is_regression(r) && r.verdict == Verdict::slower) ++failures;
    if (r.verdict == Verdict::failed) ++errors;
    if (r.verdict == Verdict::new_ || r.verdict == Verdict::missing) ++skipped;
  }
  // A partial candidate fails as one test case of its own (its rows stay skipped); a recorded program's line
  // is one test case too, failed when it gates and got slower.
  const bool missing_fails = report.missing_fails();
  const bool program_fails = report.program && report.program->regression();
  const std::size_t tests = report.rows.size() + (missing_fails ? 1 : 0) + (report.program ? 1 : 0);
  failures += (missing_fails ? 1 : 0) + (program_fails ? 1 : 0);
  const std::string suite =
      "gpuperf compare " + short_commit(report.base.commit) + ".." + short_commit(report.candidate.commit);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"gpuperf compare\" tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\" skipped=\"" << skipped << "\">\n";
  out << "  <testsuite name=\"" << xml(suite) << "\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\">\n";
  if (report.program) {
    const std::string detail = program_line(*report.program);
    out << "    <testcase classname=\"gpuperf.program\" name=\"" << xml(report.program->program)
        << " GPU time\" time=\"0\">";
    if (program_fails) {
      out << "\n      <failure type=\"regression\" message=\"" << xml(detail) << "\">" << xml(detail)
          << "</failure>\n    ";
    } else {
      out << "\n      <system-out>" << xml(detail) << "</system-out>\n    ";
    }
    out << "</testcase>\n";
  }
  for (const auto& r : report.rows) {
    out << "    <testcase classname=\"" << xml(r.instance.display_name()) << "\" name=\"" << xml(r.metric.name)
        << "\" time=\"0\">";
    const std::string detail =
        std::string(to_string(r.verdict)) + (r.base && r.candidate ? " " + signed_pct(r.change_pct) : std::string()) +
        (is_ungated_slowdown(r) ? " (not gated)" : "") + (r.note.empty() ? "" : ": " + r.note) + lines_detail(r.lines);
    if (is_regression(r) && r.verdict == Verdict::slower) {
      out << "\n      <failure type=\"regression\" message=\"" << xml(detail) << "\">" << xml(detail)
          << "</failure>\n    ";
    } else if (r.verdict == Verdict::failed) {
      out << "\n      <error type=\"failed\" message=\"" << xml(detail) << "\">" << xml(detail) << "</error>\n    ";
    } else if (r.verdict == Verdict::new_ || r.verdict == Verdict::missing) {
      out << "\n      <skipped message=\"" << xml(detail) << "\"/>\n    ";
    } else if (r.verdict != Verdict::same) {
      out << "\n      <system-out>" << xml(detail) << "</system-out>\n    ";
    }
    out << "</testcase>\n";
  }
  if (missing_fails) {
    const std::string detail = missing_line(report);
    out << "    <testcase classname=\"gpuperf.compare\" name=\"instances missing from the candidate\" "
           "time=\"0\">\n      <failure type=\"missing\" message=\""
        << xml(detail) << "\">" << xml(detail) << "</failure>\n    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

void write_changes_junit(std::ostream& out, const std::vector<ChangePoint>& changes, std::size_t series_count) {
  std::size_t failures = 0;
  // An answered regression (gpuperf ack) fails nothing: it is listed with its answer.
  const auto fails = [](const ChangePoint& c) { return c.kind == ChangeKind::regression && c.gated && !c.answer; };
  for (const auto& c : changes) failures += fails(c) ? 1 : 0;
  const std::size_t tests = changes.empty() ? 1 : changes.size();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"gpuperf detect\" tests=\"" << tests << "\" failures=\"" << failures << "\">\n";
  out << "  <testsuite name=\"gpuperf detect (" << series_count << " series)\" tests=\"" << tests << "\" failures=\""
      << failures << "\">\n";
  if (changes.empty()) {
    out << "    <testcase classname=\"gpuperf.detect\" name=\"no change points in " << series_count
        << " series\" time=\"0\"></testcase>\n";
  }
  for (const auto& c : changes) {
    std::string detail =
        std::string(to_string(c.kind)) + ' ' + signed_pct(c.change_pct) + " at " + c.commit + " (after " +
        c.previous_commit + "): " + format_value(c.before, c.metric.unit, UnitText::terminal) + " -> " +
        format_value(c.after, c.metric.unit, UnitText::terminal) + ", confidence " + confidence_cell(c.confidence) +
        (c.unconfirmed && !c.answer ? ", " + state_cell(c) : std::string()) +
        (c.kind == ChangeKind::regression && !c.gated ? " (not gated)" : "") +
        (c.answer ? ", " + state_cell(c) : std::string());
    for (const auto& h : c.hints) detail += "; " + h;
    for (const auto& l : c.lines) detail += "; " + line_change_text(l);
    out << "    <testcase classname=\"" << xml(c.instance.display_name()) << "\" name=\""
        << xml(c.metric.name + " @ " + short_commit(c.commit)) << "\" time=\"0\">";
    if (fails(c)) {
      out << "\n      <failure type=\"regression\" message=\"" << xml(detail) << "\">" << xml(detail)
          << "</failure>\n    ";
    } else {
      out << "\n      <system-out>" << xml(detail) << "</system-out>\n    ";
    }
    out << "</testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace gpuperf::reports
