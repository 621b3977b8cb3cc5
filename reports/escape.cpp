#include "reports/escape.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace gpuperf::reports {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one (overlong forms,
// surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return 1;
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1Fu;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0Fu;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07u;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

// Walks `s` as UTF-8, calling ascii(c) for each ASCII byte and other(seq) for each valid multi-byte
// sequence; invalid bytes and control characters (except tab/newline) arrive as U+FFFD.
template <typename Ascii, typename Other>
void walk_utf8(std::string_view s, Ascii ascii, Other other) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) {
      other(kReplacement);
      ++i;
      continue;
    }
    if (len == 1) {
      const char c = s[i];
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) {
        other(kReplacement);
      } else {
        ascii(c);
      }
    } else {
      other(s.substr(i, len));
    }
    i += len;
  }
}

}  // namespace

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  walk_utf8(
      s, [&](char c) { out += c; }, [&](std::string_view seq) { out += seq; });
  return out;
}

std::string terminal_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(s, i);
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (len == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    const bool c0 = len == 1 && (b0 < 0x20 || b0 == 0x7F);
    const bool c1 = len == 2 && b0 == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;  // U+0080-U+009F
    if (c0 || c1) {
      out += ' ';
    } else {
      out += s.substr(i, len);
    }
    i += len;
  }
  return out;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  walk_utf8(
      s,
      [&](char c) {
        switch (c) {
          case '&': out += "&amp;"; break;
          case '<': out += "&lt;"; break;
          case '>': out += "&gt;"; break;
          case '"': out += "&quot;"; break;
          case '\'': out += "&#39;"; break;
          default: out += c;
        }
      },
      [&](std::string_view seq) { out += seq; });
  return out;
}

std::string xml_escape(std::string_view s) { return html_escape(s); }

std::string json_string(std::string_view s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  walk_utf8(
      s,
      [&](char c) {
        switch (c) {
          case '"': out += "\\\""; break;
          case '\\': out += "\\\\"; break;
          case '\n': out += "\\n"; break;
          case '\t': out += "\\t"; break;
          case '<': out += "\\u003c"; break;
          case '>': out += "\\u003e"; break;
          case '&': out += "\\u0026"; break;
          default: out += c;
        }
      },
      [&](std::string_view seq) {
        if (seq == "\xE2\x80\xA8") {
          out += "\\u2028";
        } else if (seq == "\xE2\x80\xA9") {
          out += "\\u2029";
        } else {
          out += seq;
        }
      });
  out += '"';
  return out;
}

std::size_t terminal_width(std::string_view s) {
  std::size_t n = 0;
  for (const char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80 ? 1 : 0;  // not a continuation byte
  return n;
}

std::string md_code(std::string_view s) {
  std::string text = sanitize_utf8(s);
  std::size_t longest = 0, run = 0;
  for (char& ch : text) {
    if (ch == '\n' || ch == '\r') ch = ' ';
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  // A span that starts or ends with a backtick is padded, as CommonMark strips one space each side.
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

std::string md_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  walk_utf8(
      s,
      [&](char c) {
        switch (c) {
          case '\n':
          case '\t': out += ' '; break;
          case '&': out += "&amp;"; break;
          case '<':
            out += "&lt;";
            break;  // no tag can open; a lone '>' mid-line is plain text
          // CommonMark lets any ASCII punctuation be backslash-escaped. These start emphasis, code, links,
          // images, strikethrough, table cells or issue references anywhere in a line; the writers never put
          // a user string at the start of a line, so block markers (-, +, 1.) need nothing.
          case '\\':
          case '`':
          case '*':
          case '_':
          case '[':
          case ']':
          case '|':
          case '~':
          case '#':
          case '!':
            out += '\\';
            out += c;
            break;
          default: out += c;
        }
      },
      [&](std::string_view seq) { out += seq; });
  return out;
}

}  // namespace gpuperf::reports
