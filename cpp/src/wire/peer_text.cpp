#include <coupler/wire/peer_text.hpp>

#include <cstdint>
#include <vector>

namespace coupler {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// The code points of UTF-8 `text`; a byte that does not start a valid sequence
// becomes U+FFFD, as Python's errors="replace" reads it.
std::vector<char32_t> decoded(const std::string& text) {
  std::vector<char32_t> out;
  out.reserve(text.size());
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  for (std::size_t i = 0; i < size;) {
    const unsigned char lead = bytes[i];
    std::size_t length = 0;
    char32_t point = 0;
    char32_t lowest = 0;
    if (lead < 0x80) {
      out.push_back(lead);
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2, point = lead & 0x1F, lowest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, point = lead & 0x0F, lowest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, point = lead & 0x07, lowest = 0x10000;
    }
    bool valid = length != 0 && i + length <= size;
    for (std::size_t k = 1; valid && k < length; ++k) {
      valid = (bytes[i + k] & 0xC0) == 0x80;
      point = point << 6 | (bytes[i + k] & 0x3F);
    }
    // Overlong forms and points past U+10FFFF are not UTF-8. A surrogate is kept, to be shown
    // escaped: Python hands over a str's lone surrogates that way.
    valid = valid && point >= lowest && point <= 0x10FFFF;
    out.push_back(valid ? point : kReplacement);
    i += valid ? length : 1;
  }
  return out;
}

// Characters that print nothing, move the cursor or reorder the line: C1
// controls, format characters (bidirectional overrides among them), line and
// paragraph separators, spaces other than ASCII's, surrogates, private use and
// noncharacters. Shown escaped, a name cannot hide or disguise part of a log line.
bool invisible(char32_t c) {
  return (c >= 0x80 && c <= 0xA0) || c == 0xAD || c == 0x061C || c == 0x115F || c == 0x1160 ||
         c == 0x1680 || c == 0x180E || (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
         (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0x3164 || (c >= 0xD800 && c <= 0xF8FF) ||
         (c >= 0xFDD0 && c <= 0xFDEF) || c == 0xFEFF || (c >= 0xFFF0 && c <= 0xFFFB) ||
         (c & 0xFFFE) == 0xFFFE || (c >= 0xE0000 && c <= 0xE007F) || c >= 0xF0000;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | c >> 6);
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | c >> 12);
    out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | c >> 18);
    out += static_cast<char>(0x80 | (c >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (c >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// Python's unicode_escape spelling: \xNN below U+0100, \uNNNN, \UNNNNNNNN.
void append_hex(std::string& out, char32_t c) {
  static const char hex[] = "0123456789abcdef";
  const int digits = c < 0x100 ? 2 : c < 0x10000 ? 4 : 8;
  out += digits == 2 ? "\\x" : digits == 4 ? "\\u" : "\\U";
  for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += hex[c >> shift & 0xF];
}

// One code point as shown: itself, or its escape (which is ASCII).
void append_shown(std::string& out, char32_t c) {
  switch (c) {
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  if (c < 0x20 || c == 0x7F || invisible(c)) {
    append_hex(out, c);
  } else {
    append_utf8(out, c);
  }
}

std::size_t code_points(const std::string& utf8) {
  std::size_t count = 0;
  for (const char c : utf8) count += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
  return count;
}

}  // namespace

std::string shown_peer_text(const std::string& text, std::size_t limit) {
  const std::vector<char32_t> points = decoded(text);
  std::string escaped;
  for (std::size_t i = 0; i < points.size() && i <= limit; ++i) append_shown(escaped, points[i]);
  if (code_points(escaped) <= limit && points.size() <= limit) return escaped;
  std::string cut;
  std::size_t kept = 0;
  for (const char c : escaped) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++kept > limit) break;
    cut += c;
  }
  return cut + "\u2026 (" + std::to_string(points.size()) + " characters)";
}

}  // namespace coupler
