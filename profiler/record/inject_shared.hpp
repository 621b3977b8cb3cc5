// What the injection library's two parts share (inject.cpp: tracing; inject_metrics.cpp: hardware metrics).
#pragma once

#include <string>

namespace gpuperf::record::inject {

// Appends one line to this process's record file (thread-safe; dropped once the file is finished).
void write_line(const std::string& line);

}  // namespace gpuperf::record::inject
