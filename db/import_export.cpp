#include "db/import_export.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "db/interchange.hpp"
#include "db/new_file.hpp"

namespace gpuperf::db {

ParsedFiles read_interchange_files(const std::vector<std::string>& paths) {
  ParsedFiles parsed;
  for (const std::string& p : paths) {
    std::vector<Run> runs = read_interchange_file(p);
    parsed.files += 1;
    for (Run& r : runs) parsed.runs.push_back(std::move(r));
  }
  return parsed;
}

ImportReport import_runs(Store& store, const ParsedFiles& parsed) {
  ImportReport report;
  report.files = parsed.files;
  report.runs = parsed.runs.size();
  std::vector<InsertOutcome> outcomes = store.insert_runs(parsed.runs);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (!outcomes[i].inserted) {
      report.skipped += 1;
      continue;
    }
    report.inserted += 1;
    for (const Result& res : parsed.runs[i].results) {
      report.results += res.metrics.size();
      for (const Measurement& m : res.metrics) report.samples += m.samples.size();
    }
  }
  return report;
}

ImportReport import_into(const std::string& path, const ParsedFiles& parsed, const OpenOptions& options) {
  std::error_code ec;
  if (path != ":memory:" && !path.empty() && !is_server_location(path) &&
      !std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    NewFile file(path);
    ImportReport report;
    try {
      Store fresh(file.temp_path(), Access::read_write, options);
      report = import_runs(fresh, parsed);
    } catch (const Error& e) {
      throw Error("cannot create database '" + path + "' (nothing was left there): " + e.what(), e.exit_code());
    }
    if (file.publish()) return report;
  }
  Store store(path, Access::read_write, options);
  return import_runs(store, parsed);
}

ImportReport import_files(Store& store, const std::vector<std::string>& paths) {
  return import_runs(store, read_interchange_files(paths));
}

std::size_t export_runs(const Store& store, const std::vector<std::int64_t>& run_ids, std::ostream& out) {
  InterchangeWriter w(out);
  for (std::int64_t id : run_ids) w.add(store.load_run(id, true));
  w.finish();
  if (!out) throw EnvironmentError("writing the export failed (disk full or output closed?)");
  return w.count();
}

std::size_t export_runs_to_file(const Store& store, const std::vector<std::int64_t>& run_ids, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError("export destination '" + path + "' is a directory");
  fs::path dest(path);
  fs::path dir = dest.has_parent_path() ? dest.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + dest.filename().string() + ".tmp-XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0) {
    throw EnvironmentError("cannot write '" + path + "': cannot create a file in '" + dir.string() +
                           "': " + std::strerror(errno));
  }
  close(fd);
  try {
    std::size_t n = 0;
    {
      std::ofstream out(tmpl, std::ios::binary | std::ios::trunc);
      if (!out) throw EnvironmentError("cannot write '" + tmpl + "': " + std::strerror(errno));
      n = export_runs(store, run_ids, out);
      out.close();
      if (!out) throw EnvironmentError("cannot write '" + path + "': " + std::strerror(errno));
    }
    // On disk before it gets its name, so a crash cannot leave a named but empty file.
    if (int sync_fd = open(tmpl.c_str(), O_RDONLY); sync_fd >= 0) {
      fsync(sync_fd);
      close(sync_fd);
    }
    // mkstemp creates 0600; an export is an ordinary file.
    fs::permissions(
        tmpl, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read, ec);
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
      throw EnvironmentError("cannot move the export into place at '" + path + "': " + std::strerror(errno));
    }
    return n;
  } catch (...) {
    std::remove(tmpl.c_str());
    throw;
  }
}

}  // namespace gpuperf::db
