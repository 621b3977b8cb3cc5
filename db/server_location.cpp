#include "db/server_location.hpp"

#include <cctype>
#include <set>
#include <vector>

namespace gpuperf::db::server_location {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_uri(const std::string& s) { return starts_with(s, "postgresql://") || starts_with(s, "postgres://"); }

// The keywords of libpq's connection strings (PostgreSQL 15 documentation, "Parameter Key Words").
const std::set<std::string>& libpq_keywords() {
  static const std::set<std::string> k = {"host",
                                          "hostaddr",
                                          "port",
                                          "dbname",
                                          "user",
                                          "password",
                                          "passfile",
                                          "channel_binding",
                                          "connect_timeout",
                                          "client_encoding",
                                          "options",
                                          "application_name",
                                          "fallback_application_name",
                                          "keepalives",
                                          "keepalives_idle",
                                          "keepalives_interval",
                                          "keepalives_count",
                                          "tcp_user_timeout",
                                          "replication",
                                          "gssencmode",
                                          "sslmode",
                                          "requiressl",
                                          "sslcompression",
                                          "sslcert",
                                          "sslkey",
                                          "sslpassword",
                                          "sslrootcert",
                                          "sslcrl",
                                          "sslcrldir",
                                          "sslsni",
                                          "requirepeer",
                                          "ssl_min_protocol_version",
                                          "ssl_max_protocol_version",
                                          "krbsrvname",
                                          "gsslib",
                                          "service",
                                          "target_session_attrs"};
  return k;
}

struct Pair {
  std::string key;
  std::string raw;  // the whole "key = value" text as written
};

// Splits a keyword/value string into its pairs, as libpq reads it: values may be single-quoted with
// backslash escapes. Returns false when the text is not of that form.
bool split_pairs(const std::string& s, std::vector<Pair>& out) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto skip_space = [&] {
    while (i < n && std::isspace(static_cast<unsigned char>(s[i])) != 0) ++i;
  };
  skip_space();
  if (i == n) return false;
  while (i < n) {
    const std::size_t begin = i;
    std::string key;
    while (i < n && s[i] != '=' && std::isspace(static_cast<unsigned char>(s[i])) == 0) key += s[i++];
    skip_space();
    if (key.empty() || i == n || s[i] != '=') return false;
    ++i;
    skip_space();
    if (i < n && s[i] == '\'') {
      ++i;
      bool closed = false;
      while (i < n) {
        if (s[i] == '\\' && i + 1 < n) {
          i += 2;
          continue;
        }
        if (s[i++] == '\'') {
          closed = true;
          break;
        }
      }
      if (!closed) return false;
    } else {
      while (i < n && std::isspace(static_cast<unsigned char>(s[i])) == 0) {
        if (s[i] == '\\' && i + 1 < n) ++i;
        ++i;
      }
    }
    out.push_back({key, s.substr(begin, i - begin)});
    skip_space();
  }
  return true;
}

std::string redact_uri(const std::string& uri) {
  const std::size_t scheme_end = uri.find("://") + 3;
  const std::size_t query = uri.find('?', scheme_end);
  const std::size_t authority_end = std::min(uri.find('/', scheme_end), query);
  std::string authority =
      uri.substr(scheme_end, authority_end == std::string::npos ? std::string::npos : authority_end - scheme_end);
  const std::size_t at = authority.rfind('@');
  if (at != std::string::npos) {
    const std::size_t colon = authority.find(':');
    if (colon != std::string::npos && colon < at) authority.erase(colon, at - colon);
  }
  std::string out = uri.substr(0, scheme_end) + authority;
  if (authority_end == std::string::npos) return out;
  if (query == std::string::npos) return out + uri.substr(authority_end);
  out += uri.substr(authority_end, query - authority_end);
  // Query parameters, without password=...
  std::string kept;
  std::size_t p = query + 1;
  while (p <= uri.size()) {
    std::size_t amp = uri.find('&', p);
    if (amp == std::string::npos) amp = uri.size();
    const std::string param = uri.substr(p, amp - p);
    if (!param.empty() && param.rfind("password=", 0) != 0 && param != "password") {
      kept += (kept.empty() ? "" : "&") + param;
    }
    p = amp + 1;
  }
  return kept.empty() ? out : out + "?" + kept;
}

}  // namespace

bool is_server(const std::string& location) {
  if (is_uri(location)) return true;
  std::vector<Pair> pairs;
  return split_pairs(location, pairs) && libpq_keywords().count(pairs.front().key) > 0;
}

std::string redact(const std::string& location) {
  if (is_uri(location)) return redact_uri(location);
  std::vector<Pair> pairs;
  if (!split_pairs(location, pairs)) return location;
  std::string out;
  for (const Pair& p : pairs) {
    if (p.key == "password") continue;
    out += (out.empty() ? "" : " ") + p.raw;
  }
  return out;
}

}  // namespace gpuperf::db::server_location
