// Headless Chromium for the report tests that look at the HTML as a reader's browser draws it: where it is,
// and the command line that renders a page with no network, no profile of the user's and a time limit.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/reports/cli_fixture.hpp"

namespace gpuperf::reports {

inline std::string find_chromium() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    std::size_t start = 0;
    while (start <= dirs.size()) {
      const std::size_t end = dirs.find(':', start);
      const std::filesystem::path candidate = std::filesystem::path(dirs.substr(start, end - start)) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return "";
}

// Headless, offline, no profile state: every flag keeps Chromium from reaching out or remembering.
inline std::string chromium_command(const std::string& chromium, const std::filesystem::path& profile,
                                    const std::string& what) {
  using testing::sh_quote;
  return "timeout 120 " + sh_quote(chromium) +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
         " --disable-component-update --disable-sync --disable-extensions --hide-scrollbars"
         " --enable-logging=stderr --v=0 --user-data-dir=" +
         sh_quote(profile.string()) + " " + what;
}

inline std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = s.find(needle); pos != std::string::npos; pos = s.find(needle, pos + 1)) ++n;
  return n;
}

}  // namespace gpuperf::reports
