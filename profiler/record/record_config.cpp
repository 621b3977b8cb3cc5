#include "profiler/record/record_config.hpp"

#include <cctype>
#include <charconv>

namespace gpuperf::record {

std::optional<ReplayChoice> parse_replay_choice(const std::string& word) {
  if (word == "auto") return ReplayChoice::automatic;
  if (word == "kernel") return ReplayChoice::kernel;
  if (word == "one-pass") return ReplayChoice::one_pass;
  return std::nullopt;
}

const char* replay_choice_name(ReplayChoice choice) {
  switch (choice) {
    case ReplayChoice::kernel: return "kernel";
    case ReplayChoice::one_pass: return "one-pass";
    case ReplayChoice::automatic: break;
  }
  return "auto";
}

namespace {

bool to_number(const std::string& v, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  return ec == std::errc() && end == v.data() + v.size() && !v.empty();
}

bool to_bool(const std::string& v) { return !v.empty() && v[0] != '0'; }

std::vector<std::string> split(const std::string& v, char sep) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= v.size()) {
    const std::size_t end = std::min(v.find(sep, begin), v.size());
    if (end > begin) out.push_back(v.substr(begin, end - begin));
    begin = end + 1;
  }
  return out;
}

std::string join(const std::vector<std::string>& v, char sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(1, sep)) + s;
  return out;
}

// One key: its text name (GPUPERF_RECORD_<NAME> its own variable), whether its own variable wins over
// GPUPERF_RECORD_CONFIG, how a value sets it (false: does not parse) and its text lines (none: the default).
struct Key {
  const char* name;
  bool diagnostic;
  std::function<bool(RecordConfig&, const std::string&)> set;
  std::function<std::vector<std::string>(const RecordConfig&)> get;
};

Key text(const char* name, bool diagnostic, std::string RecordConfig::*field) {
  return {name, diagnostic,
          [field](RecordConfig& c, const std::string& v) {
            c.*field = v;
            return true;
          },
          [field](const RecordConfig& c) {
            return c.*field == RecordConfig{}.*field ? std::vector<std::string>{} : std::vector<std::string>{c.*field};
          }};
}

Key number(const char* name, bool diagnostic, std::uint64_t RecordConfig::*field) {
  return {name, diagnostic, [field](RecordConfig& c, const std::string& v) { return to_number(v, c.*field); },
          [field](const RecordConfig& c) { return std::vector<std::string>{std::to_string(c.*field)}; }};
}

Key optional_number(const char* name, bool diagnostic, std::optional<std::uint64_t> RecordConfig::*field) {
  return {name, diagnostic,
          [field](RecordConfig& c, const std::string& v) {
            std::uint64_t n = 0;
            if (!to_number(v, n)) return false;
            c.*field = n;
            return true;
          },
          [field](const RecordConfig& c) {
            return c.*field ? std::vector<std::string>{std::to_string(*(c.*field))} : std::vector<std::string>{};
          }};
}

Key flag(const char* name, bool diagnostic, bool RecordConfig::*field, bool inverted = false) {
  return {name, diagnostic,
          [field, inverted](RecordConfig& c, const std::string& v) {
            c.*field = to_bool(v) != inverted;
            return true;
          },
          [field, inverted](const RecordConfig& c) {
            return std::vector<std::string>{(c.*field != inverted) ? "1" : "0"};
          }};
}

const std::vector<Key>& keys() {
  static const std::vector<Key>* table = new std::vector<Key>{
      // never destroyed: read from exit handlers too
      text("dir", false, &RecordConfig::dir),
      flag("no_nvtx", false, &RecordConfig::nvtx, true),
      {"metrics", false,
       [](RecordConfig& c, const std::string& v) {
         c.metrics = split(v, ',');
         return true;
       },
       [](const RecordConfig& c) {
         return c.metrics.empty() ? std::vector<std::string>{} : std::vector<std::string>{join(c.metrics, ',')};
       }},
      {"metrics_triage", false,
       [](RecordConfig& c, const std::string& v) {
         c.metrics_triage = split(v, ',');
         return true;
       },
       [](const RecordConfig& c) {
         return c.metrics_triage.empty() ? std::vector<std::string>{}
                                         : std::vector<std::string>{join(c.metrics_triage, ',')};
       }},
      text("cupti_module", false, &RecordConfig::cupti_module),
      number("profile_launches", false, &RecordConfig::profile_launches),
      number("profile_budget", false, &RecordConfig::profile_budget),
      number("profile_ms", false, &RecordConfig::profile_ms),
      number("profile_watchdog_ms", false, &RecordConfig::profile_watchdog_ms),
      number("profile_groups", false, &RecordConfig::profile_groups),
      {"profile_replay", false,
       [](RecordConfig& c, const std::string& v) {
         const std::optional<ReplayChoice> choice = parse_replay_choice(v);
         if (!choice) return false;
         c.replay = *choice;
         return true;
       },
       [](const RecordConfig& c) { return std::vector<std::string>{replay_choice_name(c.replay)}; }},
      flag("source_lines", false, &RecordConfig::source_lines),
      // One item a line: a substring may hold commas and spaces (kernel names do), not a line break.
      {"communication_kernels", false,
       [](RecordConfig& c, const std::string& v) {
         for (auto& s : split(v, '\n')) c.communication_kernels.push_back(std::move(s));
         return true;
       },
       [](const RecordConfig& c) { return c.communication_kernels; }},
      text("kernel_regex", false, &RecordConfig::kernel_regex),
      text("nvtx_include", false, &RecordConfig::nvtx_include),
      {"kernel_name", false,
       [](RecordConfig& c, const std::string& v) {
         const std::optional<KernelNaming> naming = parse_kernel_naming(v);
         if (!naming) return false;
         c.kernel_name = *naming;
         return true;
       },
       [](const RecordConfig& c) {
         return c.kernel_name == KernelNaming::demangled ? std::vector<std::string>{}
                                                         : std::vector<std::string>{kernel_naming_word(c.kernel_name)};
       }},
      number("launch_skip", false, &RecordConfig::launch_skip),
      optional_number("launch_count", false, &RecordConfig::launch_count),
      flag("pm_sampling", false, &RecordConfig::pm_sampling),
      text("pm_nvtx", false, &RecordConfig::pm_nvtx),
      number("pm_launch_skip", false, &RecordConfig::pm_launch_skip),
      number("pm_launch_count", false, &RecordConfig::pm_launch_count),
      number("pm_interval_ns", false, &RecordConfig::pm_interval_ns),
      number("pm_buffer_bytes", false, &RecordConfig::pm_buffer_bytes),
      number("pm_max_samples", false, &RecordConfig::pm_max_samples),
      number("flush_ms", true, &RecordConfig::flush_ms),
      text("overhead_ab", true, &RecordConfig::overhead_ab),
      flag("nvtx_trace", true, &RecordConfig::nvtx_trace),
      flag("profile_trace", true, &RecordConfig::profile_trace),
      {"profile_keep", true,
       [](RecordConfig& c, const std::string& v) {
         c.profile_keep = to_bool(v);
         return true;
       },
       [](const RecordConfig& c) {
         return c.profile_keep ? std::vector<std::string>{*c.profile_keep ? "1" : "0"} : std::vector<std::string>{};
       }},
      text("lines_flush", true, &RecordConfig::lines_flush),
      optional_number("communication_wait_ms", true, &RecordConfig::communication_wait_ms),
  };
  return *table;
}

const Key* find_key(const std::string& name) {
  for (const Key& k : keys()) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

std::string variable_of(const char* key) {
  std::string v = "GPUPERF_RECORD_";
  for (const char* p = key; *p != '\0'; ++p) v += static_cast<char>(std::toupper(static_cast<unsigned char>(*p)));
  return v;
}

}  // namespace

std::string RecordConfig::to_text() const {
  std::string out;
  for (const Key& k : keys()) {
    for (const std::string& v : k.get(*this)) out += std::string(k.name) + "=" + v + "\n";
  }
  return out;
}

bool RecordConfig::parse(const std::string& text, std::string* error) {
  std::size_t number = 0;
  for (const std::string& line : split(text, '\n')) {
    ++number;
    const std::size_t eq = line.find('=');
    const Key* key = eq == std::string::npos ? nullptr : find_key(line.substr(0, eq));
    if (key == nullptr || !key->set(*this, line.substr(eq + 1))) {
      if (error != nullptr)
        *error = "line " + std::to_string(number) + " '" + line +
                 "': " + (key == nullptr ? "not key=value of a known key" : "a value that does not parse");
      return false;
    }
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> RecordConfig::environment() const {
  return {{kRecordConfigVariable, to_text()}};
}

RecordConfig config_from_environment(const std::function<const char*(const char*)>& env, std::string* error) {
  RecordConfig c;
  const char* whole = env(kRecordConfigVariable);
  const bool given = whole != nullptr && *whole != '\0';
  if (given) c.parse(whole, error);
  for (const Key& k : keys()) {
    if (given && !k.diagnostic) continue;
    const std::string variable = variable_of(k.name);
    const char* v = env(variable.c_str());
    if (v == nullptr || *v == '\0') continue;
    if (!k.set(c, v) && error != nullptr && error->empty()) *error = variable + "='" + v + "' does not parse";
  }
  return c;
}

}  // namespace gpuperf::record
