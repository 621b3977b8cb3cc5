// The report writers: each turns a ReportModel into one document and only reads the model.
#pragma once

#include <cstddef>
#include <string>

#include "reports/report_model.hpp"

namespace gpuperf::reports {

// One self-contained HTML page: inline CSS, SVG and a small script for hover details; no network fetches.
std::string render_html(const ReportModel& model);

struct MarkdownOptions {
  std::string html_link = "report.html";  // where the full report is, for "see the HTML report"; "" for none
  std::size_t max_chars = 60000;          // GitHub's PR comment limit is 65,536; job summaries allow 1 MiB
};

// GitHub-flavoured Markdown for a PR comment or a CI job summary, never longer than options.max_chars.
std::string render_markdown(const ReportModel& model, const MarkdownOptions& options = {});

}  // namespace gpuperf::reports
