#include "profiler/record/record_file.hpp"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "core/errors.hpp"

namespace gpuperf::record {
namespace {

// The rest of the line after `fields` space-separated fields (names and paths may hold spaces).
std::string rest_after(const std::string& line, int fields) {
  std::size_t pos = 0;
  for (int i = 0; i < fields; ++i) {
    pos = line.find(' ', pos);
    if (pos == std::string::npos) return "";
    ++pos;
  }
  return line.substr(pos);
}

}  // namespace

ProcessRecord parse_process_text(const std::string& text, const std::string& what) {
  ProcessRecord p;
  std::map<std::uint64_t, std::string> names, ranges;
  std::map<std::uint32_t, std::uint64_t> range_of_correlation;
  std::map<std::uint32_t, std::vector<double>> metrics_of_correlation;
  struct Pending {
    LaunchRecord r;
    std::uint64_t name_id;
  };
  std::vector<Pending> pending;
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  const bool ends_with_newline = !text.empty() && text.back() == '\n';
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    // A killed process may leave its last line half-written: only a line ended by '\n' counts.
    if (in.eof() && !ends_with_newline) break;
    std::istringstream f(line);
    char kind = 0;
    f >> kind;
    auto bad = [&](const char* why) {
      return InputError(what + ":" + std::to_string(lineno) + ": " + why + ": '" + line.substr(0, 120) + "'");
    };
    switch (kind) {
      case 'P':
        if (!(f >> p.pid >> p.ppid)) throw bad("malformed process line");
        p.argv0 = rest_after(line, 4);
        break;
      case 'N': {
        std::uint64_t id = 0;
        if (!(f >> id)) throw bad("malformed name line");
        names[id] = rest_after(line, 2);
        break;
      }
      case 'R': {
        std::uint64_t id = 0;
        if (!(f >> id)) throw bad("malformed range line");
        ranges[id] = rest_after(line, 2);
        break;
      }
      case 'K': {
        Pending k;
        LaunchRecord& r = k.r;
        if (!(f >> r.device >> r.context >> r.stream >> r.correlation >> r.start_ns >> r.end_ns >> r.grid[0] >>
              r.grid[1] >> r.grid[2] >> r.block[0] >> r.block[1] >> r.block[2] >> k.name_id)) {
          throw bad("malformed kernel line");
        }
        if (r.end_ns < r.start_ns) throw bad("kernel ends before it starts");
        pending.push_back(std::move(k));
        break;
      }
      case 'E': {
        std::uint32_t corr = 0;
        std::uint64_t range = 0;
        if (!(f >> corr >> range)) throw bad("malformed correlation line");
        range_of_correlation[corr] = range;
        break;
      }
      case 'C': {
        std::string name;
        while (f >> name) p.metric_names.push_back(name);
        break;
      }
      case 'M': {
        std::uint32_t corr = 0;
        if (!(f >> corr)) throw bad("malformed metrics line");
        std::vector<double> values;
        double v = 0;
        while (f >> v) values.push_back(v);
        if (values.size() != p.metric_names.size()) throw bad("metric values do not match the C line");
        metrics_of_correlation[corr] = std::move(values);
        break;
      }
      case 'D': {
        std::uint64_t n = 0;
        if (!(f >> n)) throw bad("malformed dropped-records line");
        p.dropped += n;
        break;
      }
      case 'X':
        p.errors.push_back(rest_after(line, 1));
        break;
      case 'Z':
        p.complete = true;
        break;
      default:
        throw bad("unknown record kind");
    }
  }
  for (auto& k : pending) {
    auto n = names.find(k.name_id);
    if (n == names.end()) throw InputError(what + ": kernel name id " + std::to_string(k.name_id) + " is never named");
    k.r.name = n->second;
    k.r.pid = p.pid;
    if (auto m = metrics_of_correlation.find(k.r.correlation); m != metrics_of_correlation.end()) {
      k.r.metrics = m->second;
    }
    if (auto c = range_of_correlation.find(k.r.correlation); c != range_of_correlation.end()) {
      if (auto rg = ranges.find(c->second); rg != ranges.end()) k.r.nvtx_path = rg->second;
    }
    p.launches.push_back(std::move(k.r));
  }
  return p;
}

ProcessRecord parse_process_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EnvironmentError("cannot read the record file " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return parse_process_text(s.str(), path);
}

std::vector<ProcessRecord> read_record_dir(const std::string& dir) {
  std::vector<ProcessRecord> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) throw EnvironmentError("cannot read the record folder " + dir);
  std::vector<std::string> files;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n.rfind("process-", 0) == 0 && n.size() > 12 && n.substr(n.size() - 4) == ".txt") files.push_back(n);
  }
  closedir(d);
  for (const auto& f : files) out.push_back(parse_process_file(dir + "/" + f));
  std::sort(out.begin(), out.end(), [](const ProcessRecord& a, const ProcessRecord& b) { return a.pid < b.pid; });
  return out;
}

}  // namespace gpuperf::record
