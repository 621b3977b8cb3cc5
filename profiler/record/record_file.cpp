#include "profiler/record/record_file.hpp"

#include <dirent.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "core/errors.hpp"

namespace gpuperf::record {
namespace {

// The rest of the line after `fields` space-separated fields (names and paths may hold spaces).
std::string rest_after(std::string_view line, int fields) {
  std::size_t pos = 0;
  for (int i = 0; i < fields; ++i) {
    pos = line.find(' ', pos);
    if (pos == std::string_view::npos) return "";
    ++pos;
  }
  return std::string(line.substr(pos));
}

// The space-separated fields of one line, numbers read with from_chars: the parser runs once per launch,
// and a program of a million launches should not wait on a stream per line.
class Fields {
 public:
  explicit Fields(std::string_view line) : rest_(line) {}

  // The next field as a number; false (and nothing consumed) when there is none or it is not one whole.
  template <typename T>
  bool next(T& out) {
    skip_spaces();
    const char* first = rest_.data();
    const char* last = first + rest_.size();
    if (first == last) return false;
    const auto [end, ec] = std::from_chars(first, last, out);
    if (ec != std::errc() || (end != last && *end != ' ')) return false;
    rest_.remove_prefix(static_cast<std::size_t>(end - first));
    return true;
  }
  bool next_char(char& out) {
    skip_spaces();
    if (rest_.empty()) return false;
    out = rest_.front();
    rest_.remove_prefix(1);
    return true;
  }
  bool next_word(std::string& out) {
    skip_spaces();
    if (rest_.empty()) return false;
    const std::size_t n = std::min(rest_.find(' '), rest_.size());
    out.assign(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return true;
  }
  bool at_end() {
    skip_spaces();
    return rest_.empty();
  }

 private:
  void skip_spaces() {
    while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
  }
  std::string_view rest_;
};

}  // namespace

ProcessRecord parse_process_text(const std::string& text, const std::string& what) {
  ProcessRecord p;
  auto strings = std::make_shared<RecordStrings>();
  auto& names = strings->names;
  auto& ranges = strings->ranges;
  std::unordered_map<std::uint32_t, std::uint64_t> range_of_correlation;
  std::unordered_map<std::uint32_t, std::vector<double>> metrics_of_correlation;
  std::vector<std::uint64_t> name_ids;  // of p.launches, resolved once every line is read
  p.launches.reserve(text.size() / 64);  // a K line is longer than that
  name_ids.reserve(text.size() / 64);
  int lineno = 0;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t newline = text.find('\n', begin);
    // A killed process may leave its last line half-written: only a line ended by '\n' counts.
    if (newline == std::string::npos) break;
    const std::string_view line(text.data() + begin, newline - begin);
    begin = newline + 1;
    ++lineno;
    if (line.empty()) continue;
    Fields f(line);
    char kind = 0;
    f.next_char(kind);
    auto bad = [&](const char* why) {
      return InputError(what + ":" + std::to_string(lineno) + ": " + why + ": '" +
                        std::string(line.substr(0, 120)) + "'");
    };
    switch (kind) {
      case 'P':
        if (!(f.next(p.pid) && f.next(p.ppid))) throw bad("malformed process line");
        p.argv0 = rest_after(line, 4);
        break;
      case 'N': {
        std::uint64_t id = 0;
        if (!f.next(id)) throw bad("malformed name line");
        names[id] = rest_after(line, 2);
        break;
      }
      case 'R': {
        std::uint64_t id = 0;
        if (!f.next(id)) throw bad("malformed range line");
        ranges[id] = rest_after(line, 2);
        break;
      }
      case 'K': {
        LaunchRecord r;
        std::uint64_t name_id = 0;
        if (!(f.next(r.device) && f.next(r.context) && f.next(r.stream) && f.next(r.correlation) &&
              f.next(r.start_ns) && f.next(r.end_ns) && f.next(r.grid[0]) && f.next(r.grid[1]) &&
              f.next(r.grid[2]) && f.next(r.block[0]) && f.next(r.block[1]) && f.next(r.block[2]) &&
              f.next(name_id))) {
          throw bad("malformed kernel line");
        }
        if (r.end_ns < r.start_ns) throw bad("kernel ends before it starts");
        p.launches.push_back(r);
        name_ids.push_back(name_id);
        break;
      }
      case 'E': {
        std::uint32_t corr = 0;
        std::uint64_t range = 0;
        if (!(f.next(corr) && f.next(range))) throw bad("malformed correlation line");
        range_of_correlation[corr] = range;
        break;
      }
      case 'C': {
        std::string name;
        while (f.next_word(name)) p.metric_names.push_back(name);
        break;
      }
      case 'M': {
        std::uint32_t corr = 0;
        if (!f.next(corr)) throw bad("malformed metrics line");
        std::vector<double> values;
        double v = 0;
        while (f.next(v)) values.push_back(v);
        if (!f.at_end() || values.size() != p.metric_names.size()) {
          throw bad("metric values do not match the C line");
        }
        metrics_of_correlation[corr] = std::move(values);
        break;
      }
      case 'D': {
        std::uint64_t n = 0;
        if (!f.next(n)) throw bad("malformed dropped-records line");
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
  for (std::size_t i = 0; i < p.launches.size(); ++i) {
    LaunchRecord& r = p.launches[i];
    auto n = names.find(name_ids[i]);
    if (n == names.end()) throw InputError(what + ": kernel name id " + std::to_string(name_ids[i]) + " is never named");
    r.name = n->second;
    r.pid = p.pid;
    if (auto m = metrics_of_correlation.find(r.correlation); m != metrics_of_correlation.end()) r.metrics = m->second;
    if (auto c = range_of_correlation.find(r.correlation); c != range_of_correlation.end()) {
      if (auto rg = ranges.find(c->second); rg != ranges.end()) r.nvtx_path = rg->second;
    }
  }
  p.strings = std::move(strings);
  return p;
}

ProcessRecord parse_process_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw EnvironmentError("cannot read the record file " + path);
  std::string text(static_cast<std::size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) {
    throw EnvironmentError("cannot read the record file " + path);
  }
  return parse_process_text(text, path);
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
