#include "db/merge.hpp"

#include <filesystem>

#include "core/errors.hpp"
#include "db/answers_transfer.hpp"

namespace gpuperf::db {

ParsedFiles read_databases(const std::vector<std::string>& paths) {
  ParsedFiles parsed;
  for (const auto& path : paths) {
    // Access::read_only refuses a missing file itself, but the message should name the merge source.
    if (!location_exists(path)) throw InputError(path + ": no such database to merge");
    const Store source(path, Access::read_only);
    for (const RunInfo& info : source.runs()) parsed.runs.push_back(source.load_run(info.id, true));
    const Answers answers = all_answers(source);
    parsed.answers.acks.insert(parsed.answers.acks.end(), answers.acks.begin(), answers.acks.end());
    parsed.answers.notes.insert(parsed.answers.notes.end(), answers.notes.begin(), answers.notes.end());
    ++parsed.files;
  }
  return parsed;
}

ImportReport merge_databases(Store& into, const std::vector<std::string>& sources) {
  // Read everything first: a bad source anywhere means nothing is written.
  return import_runs(into, read_databases(sources));
}

}  // namespace gpuperf::db
