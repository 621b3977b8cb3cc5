#include "db/merge.hpp"

#include <filesystem>

#include "core/errors.hpp"

namespace gpuperf::db {

ParsedFiles read_databases(const std::vector<std::string>& paths) {
  ParsedFiles parsed;
  for (const auto& path : paths) {
    // Access::read_only refuses a missing file itself, but the message should name the merge source.
    if (!location_exists(path)) throw InputError(path + ": no such database to merge");
    const Store source(path, Access::read_only);
    for (const RunInfo& info : source.runs()) parsed.runs.push_back(source.load_run(info.id, true));
    ++parsed.files;
  }
  return parsed;
}

ImportReport merge_databases(Store& into, const std::vector<std::string>& sources) {
  // Read everything first: a bad source anywhere means nothing is written.
  return import_runs(into, read_databases(sources));
}

}  // namespace gpuperf::db
