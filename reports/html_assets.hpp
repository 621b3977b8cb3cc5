// The HTML report's inline CSS and script (no network fetches: the page must open offline).
#pragma once

#include <string>

namespace gpuperf::reports::html {

const char* style_sheet();
// The hover script; it reads the JSON in <script id="gp-data"> and marks <html data-charts-ready="N">.
std::string script();

}  // namespace gpuperf::reports::html
