// A result's source lines in the interchange format (db/interchange.hpp). A result whose source-line pass
// ran carries
//
//   "source": {"status": "ok", "message": "...", "launches": 3, "lines_total": 57,
//              "lines": [{"file": "kernels/memory_access.cu", "line": 57, "function": "strided_copy",
//                         "sass_offset": 1248, "text": "out[i] = in[i * stride];",
//                         "inst_executed": 32768, "global_ld_sectors": 1048576, ...}, ...]}
//
// Counters are per launch, named as core/source_lines.hpp names them (db/source_lines.hpp, kLineCounters);
// a counter left out is 0 and the writer leaves out zeros. "source" is optional and new fields need no new
// version: files without it are unchanged, and an older gpuperf ignores it as it ignores any unknown field.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace gpuperf::db {

nlohmann::ordered_json source_lines_to_json(const SourceLines& source);

// Validates the whole object; an InputError "<source>: <path>...: what" names the first bad value's JSON path.
SourceLines source_lines_from_json(const nlohmann::ordered_json& v, const std::string& source, const std::string& path);

}  // namespace gpuperf::db
