#include "core/short_name.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>

namespace gpuperf {
namespace {

constexpr std::size_t npos = std::string::npos;
const std::string kEllipsis = "\xE2\x80\xA6";  // …

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

bool is_opener(char c) { return c == '<' || c == '(' || c == '[' || c == '{'; }

char opener_of(char close) {
  switch (close) {
    case '>': return '<';
    case ')': return '(';
    case ']': return '[';
    case '}': return '{';
    default: return 0;
  }
}

// Where an operator's name ends when one starts at `i` ("operator<", "operator()", "operator<<="), else `i`:
// its brackets are not brackets.
std::size_t operator_end(const std::string& s, std::size_t i) {
  if (s.compare(i, 8, "operator") != 0 || (i > 0 && is_ident(s[i - 1]))) return i;
  std::size_t j = i + 8;
  if (j < s.size() && is_ident(s[j])) return i;  // "operator_count": an identifier
  if (s.compare(j, 2, "()") == 0 || s.compare(j, 2, "[]") == 0) return j + 2;
  while (j < s.size() && std::string("<>=!+-*/%^&|~,").find(s[j]) != npos) ++j;
  return j;
}

// The bracket structure of a name: for each opener, the index of its closer (npos when it has none). A closer
// that matches no open bracket is text; an unclosed '<' (a comparison inside parentheses) gives way to a ')'
// or ']' or '}' that closes what is around it. "->" is not a bracket.
struct Brackets {
  std::vector<std::size_t> match;
  std::size_t max_template_depth = 0;

  explicit Brackets(const std::string& s) : match(s.size(), npos) {
    std::vector<std::size_t> open;
    std::size_t templates = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (const std::size_t op = operator_end(s, i); op > i) {
        i = op - 1;
        continue;
      }
      const char c = s[i];
      if (is_opener(c)) {
        open.push_back(i);
        if (c == '<') max_template_depth = std::max(max_template_depth, ++templates);
        continue;
      }
      const char want = opener_of(c);
      if (want == 0 || (c == '>' && i > 0 && s[i - 1] == '-')) continue;
      std::size_t k = open.size();
      while (k > 0 && s[open[k - 1]] != want && s[open[k - 1]] == '<') --k;
      if (k == 0 || s[open[k - 1]] != want) continue;  // closes nothing: text
      while (open.size() > k) {                        // unclosed '<' inside what closes here
        if (s[open.back()] == '<') --templates;
        open.pop_back();
      }
      match[open.back()] = i;
      if (want == '<') --templates;
      open.pop_back();
    }
  }
};

// Renders a name with its brackets folded. `keep`: template argument lists nested deeper than this are "<…>"
// (0: every list of the name itself). At the top level a parameter list ends the name.
struct Folder {
  const std::string& s;
  Brackets b;
  std::size_t override_at = npos;  // a top-level '<' rendered as `override_text` (the disambiguation)
  std::string override_text;

  explicit Folder(const std::string& name) : s(name), b(name) {}

  std::string render(std::size_t keep) const { return render(0, s.size(), keep, true); }

  // Top-level template lists, opener and closer, in order.
  std::vector<std::pair<std::size_t, std::size_t>> top_lists() const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (const std::size_t op = operator_end(s, i); op > i) {
        i = op - 1;
      } else if (is_opener(s[i])) {
        if (b.match[i] == npos) break;
        if (s[i] == '(' && s.compare(i, 21, "(anonymous namespace)") != 0) break;  // the parameter list
        if (s[i] == '<') out.emplace_back(i, b.match[i]);
        i = b.match[i];
      }
    }
    return out;
  }

  // The arguments of the list opened at `open`, split at its own commas, leading spaces dropped.
  std::vector<std::string> arguments(std::size_t open) const {
    std::vector<std::string> args;
    std::size_t start = open + 1;
    const std::size_t close = b.match[open];
    for (std::size_t i = start; i <= close; ++i) {
      if (const std::size_t op = operator_end(s, i); op > i) {
        i = op - 1;
      } else if (i < close && is_opener(s[i]) && b.match[i] != npos) {
        i = b.match[i];
      } else if (i == close || s[i] == ',') {
        std::size_t from = start;
        while (from < i && s[from] == ' ') ++from;
        std::size_t to = i;
        while (to > from && s[to - 1] == ' ') --to;
        args.push_back(s.substr(from, to - from));
        start = i + 1;
      }
    }
    return args;
  }

  std::string render(std::size_t from, std::size_t to, std::size_t keep, bool top) const {
    std::string out;
    std::size_t i = from;
    if (top && s.compare(i, 5, "void ") == 0) i += 5;  // kernels return void: the demangler's return type
    while (i < to) {
      if (const std::size_t op = operator_end(s, i); op > i) {
        out.append(s, i, op - i);
        i = op;
        continue;
      }
      const char c = s[i];
      const std::size_t m = b.match[i] < to ? b.match[i] : npos;
      if (c == '<') {
        if (top && i == override_at) {
          out += override_text;
        } else if (m == npos) {
          return out + "<" + kEllipsis;  // unbalanced: what it opens is folded to the end
        } else {
          out += keep == 0 ? "<" + kEllipsis + ">" : "<" + render(i + 1, m, keep - 1, false) + ">";
        }
        i = m + 1;
        continue;
      }
      if (c == '(') {
        if (s.compare(i, 21, "(anonymous namespace)") == 0) {  // dropped with its "::"
          if (s.compare(i + 21, 2, "::") == 0) {
            i += 23;
          } else {
            out += "(anon)";
            i += 21;
          }
          continue;
        }
        if (m == npos) return top ? out : out + "(" + kEllipsis;
        const bool params = top || (i > 0 && (is_ident(s[i - 1]) || s[i - 1] == '>' || s[i - 1] == ')'));
        std::size_t after = m + 1;
        if (s.compare(after, 6, " const") == 0) after += 6;
        if (params &&
            s.compare(after, 2, "::") == 0) {  // a local scope: "fill_kernel(at::Tensor&)::" -> "fill_kernel()::"
          out += "()";
          i = after;
          continue;
        }
        if (top) return out;  // the parameter list and what follows it (" const", "[clone .cold]")
        out += "(" + render(i + 1, m, keep, false) + ")";  // a cast or a function type: kept
        i = m + 1;
        continue;
      }
      if (c == '{' && m != npos && s.compare(i, 8, "{lambda(") == 0) {
        const std::size_t hash = s.rfind('#', m);
        out += "{lambda" + (hash != npos && hash > i ? s.substr(hash, m - hash) : std::string()) + "}";
        i = m + 1;
        continue;
      }
      if (is_opener(c) && m == npos && !top) return out + c + kEllipsis;
      out += c;
      ++i;
    }
    return out;
  }
};

// The first `n` code points of `s`.
std::string utf8_prefix(const std::string& s, std::size_t n) {
  std::size_t i = 0;
  for (std::size_t count = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && count++ == n) break;
  }
  return s.substr(0, i);
}

// "train/" of "train/at::native::kernel<...>": text up to a '/' ahead of any bracket, space or "::".
std::size_t prefix_length(const std::string& full) {
  const std::size_t slash = full.find('/');
  if (slash == npos) return 0;
  const std::size_t other = std::min(full.find_first_of("<([{ "), full.find("::"));
  return slash < other ? slash + 1 : 0;
}

// Where `body`'s top-level scopes start: after each "::" outside brackets, up to an unbalanced bracket.
std::vector<std::size_t> scope_starts(const std::string& body) {
  std::vector<std::size_t> out;
  const Brackets b(body);
  for (std::size_t i = 0; i + 1 < body.size(); ++i) {
    if (is_opener(body[i])) {
      if (b.match[i] == npos) break;
      i = b.match[i];
    } else if (body.compare(i, 2, "::") == 0) {
      out.push_back(i);
      ++i;
    }
  }
  return out;
}

// `body` within `budget` code points: whole as it is, else from a top-level scope on ("…::native::kernel<…>");
// `cut_inside` says whether even the last scope had to be cut at its end.
std::string fit(const std::string& body, std::size_t budget, bool& cut_inside) {
  cut_inside = false;
  if (utf8_length(body) <= budget) return body;
  for (std::size_t at : scope_starts(body)) {
    std::string tail = kEllipsis + body.substr(at);
    if (utf8_length(tail) <= budget) return tail;
  }
  cut_inside = true;
  return budget == 0 ? std::string() : utf8_prefix(body, budget - 1) + kEllipsis;
}

struct Folded {
  std::string text;
  bool cut_inside = false;
};

// The fold of `full`, with a top-level template list replaced when `folder` says so.
Folded fold_with(const std::string& prefix, const Folder& folder, std::size_t max_chars, std::size_t start_keep) {
  const std::size_t budget = max_chars > utf8_length(prefix) ? max_chars - utf8_length(prefix) : 0;
  std::string body;
  for (std::size_t keep = start_keep + 1; keep-- > 0;) {
    body = folder.render(keep);
    if (body.empty()) body = folder.s;  // nothing left of it ("(("): shown as it is
    if (utf8_length(body) <= budget) return {prefix + body, false};
  }
  Folded f;
  f.text = prefix + fit(body, budget, f.cut_inside);
  return f;
}

// fold_name within max_chars with " #" and `digits` hex digits of the full name's hash at the end.
std::string hashed(const std::string& full, std::size_t max_chars, int digits) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a64(full)));
  const std::size_t room = max_chars > static_cast<std::size_t>(digits) + 2 ? max_chars - digits - 2 : 1;
  return fold_name(full, room) + " #" + std::string(hex, static_cast<std::size_t>(digits));
}

// Names that fold alike: each one's first differing top-level template argument, shown as little folded as
// tells it from the others; "" where none does within max_chars.
std::vector<std::string> tell_apart(const std::vector<std::string>& group, std::size_t max_chars) {
  struct Member {
    std::string prefix, body;
    std::size_t open = npos;
    std::vector<std::string> args;
  };
  std::vector<Member> members;
  for (const auto& full : group) {
    Member m;
    const std::size_t p = prefix_length(full);
    m.prefix = full.substr(0, p);
    m.body = full.substr(p);
    const Folder f(m.body);
    const auto lists = f.top_lists();
    if (!lists.empty()) {
      m.open = lists.back().first;  // the function's own arguments
      m.args = f.arguments(m.open);
    }
    members.push_back(std::move(m));
  }
  // The first argument in which each member differs from another (npos: none).
  std::vector<std::size_t> first_difference(members.size(), npos);
  for (std::size_t a = 0; a < members.size(); ++a) {
    const Member& m = members[a];
    for (std::size_t i = 0; i < m.args.size() && first_difference[a] == npos; ++i) {
      for (const Member& o : members) {
        if (&o != &m && (i >= o.args.size() || o.args[i] != m.args[i])) first_difference[a] = i;
      }
    }
  }
  // Member x with argument k shown as little folded as tells it apart: its template lists kept `depth`
  // deep, from its `scope`-th top-level scope on ("…::cuda::normal_and_transform<…>()::{lambda#2}").
  auto candidate = [&](const Member& x, std::size_t k, std::size_t depth, std::size_t scope) -> std::string {
    if (x.open == npos || k >= x.args.size()) return "";
    const Folder arg_folder(x.args[k]);
    std::string arg = arg_folder.render(0, x.args[k].size(), depth, false);
    if (scope > 0) {
      const auto starts = scope_starts(arg);
      if (scope > starts.size()) return "";
      arg = kEllipsis + arg.substr(starts[scope - 1]);
    }
    Folder f(x.body);
    f.override_at = x.open;
    f.override_text = "<" + (k > 0 ? kEllipsis + ", " : std::string()) + arg +
                      (k + 1 < x.args.size() ? ", " + kEllipsis : std::string()) + ">";
    const Folded folded = fold_with(x.prefix, f, max_chars, 0);
    return folded.cut_inside ? std::string() : folded.text;
  };
  std::vector<std::string> out(group.size());
  std::set<std::size_t> ks(first_difference.begin(), first_difference.end());
  ks.erase(npos);
  for (std::size_t k : ks) {
    for (std::size_t depth = 0; depth <= 4; ++depth) {
      for (std::size_t scope = 0; scope <= 6; ++scope) {
        std::vector<std::string> shown(members.size());
        for (std::size_t x = 0; x < members.size(); ++x) shown[x] = candidate(members[x], k, depth, scope);
        for (std::size_t a = 0; a < members.size(); ++a) {
          if (first_difference[a] != k || !out[a].empty() || shown[a].empty()) continue;
          if (std::count(shown.begin(), shown.end(), shown[a]) == 1) out[a] = shown[a];
        }
      }
    }
  }
  return out;
}

}  // namespace

std::size_t utf8_length(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string fold_name(const std::string& full, std::size_t max_chars) {
  const std::size_t p = prefix_length(full);
  const std::string body = full.substr(p);
  const Folder folder(body);
  return fold_with(full.substr(0, p), folder, max_chars, folder.b.max_template_depth).text;
}

ShortNames::ShortNames(const std::vector<std::string>& full_names, std::size_t max_chars) : max_chars_(max_chars) {
  std::map<std::string, std::vector<std::string>> by_fold;
  for (const std::string& full : std::set<std::string>(full_names.begin(), full_names.end())) {
    by_fold[fold_name(full, max_chars)].push_back(full);
  }
  for (const auto& [folded, group] : by_fold) {
    if (group.size() == 1) {
      short_[group.front()] = folded;
      continue;
    }
    const auto apart = tell_apart(group, max_chars);
    for (std::size_t i = 0; i < group.size(); ++i) {
      short_[group[i]] = apart[i].empty() ? hashed(group[i], max_chars, 4) : apart[i];
    }
  }
  // A form chosen above may still meet another name's (or two hashes may share 4 digits): longer hashes.
  for (int digits : {8, 16}) {
    std::map<std::string, std::vector<std::string>> by_short;
    for (const auto& [full, s] : short_) by_short[s].push_back(full);
    bool clash = false;
    for (const auto& [s, fulls] : by_short) {
      if (fulls.size() < 2) continue;
      clash = true;
      for (const auto& full : fulls) short_[full] = hashed(full, max_chars, digits);
    }
    if (!clash) break;
  }
}

std::string ShortNames::operator()(const std::string& full) const {
  const auto it = short_.find(full);
  return it != short_.end() ? it->second : fold_name(full, max_chars_);
}

std::string ShortNames::display_name(const BenchmarkInstance& instance) const {
  BenchmarkInstance shown = instance;
  shown.name = (*this)(instance.name);
  return shown.display_name();
}

}  // namespace gpuperf
