#pragma once
// Text a peer chose (object and event names) made safe to show in a reply or a log line: one
// printable line, cut to a bounded length. The same rules as coupler.wire.peer_text, so that both
// server paths refuse with the same text (for ASCII control characters; other UTF-8 passes through).

#include <cstddef>
#include <string>

namespace coupler::detail {

// Long enough for any real name, short enough that a refusal stays one readable line.
constexpr std::size_t kPeerTextLimit = 200;

inline bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

inline std::size_t code_points(const std::string& text) {
  std::size_t count = 0;
  for (const char c : text) count += is_continuation(static_cast<unsigned char>(c)) ? 0 : 1;
  return count;
}

inline void append_escaped(std::string& out, unsigned char byte) {
  static const char hex[] = "0123456789abcdef";
  switch (byte) {
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  if (byte < 0x20 || byte == 0x7f) {
    out += "\\x";
    out += hex[byte >> 4];
    out += hex[byte & 0xf];
  } else {
    out += static_cast<char>(byte);
  }
}

// `text` escaped to one line; cut to `limit` characters with an ellipsis naming its length.
inline std::string shown(const std::string& text, std::size_t limit = kPeerTextLimit) {
  std::string escaped;
  std::size_t seen = 0;  // code points of `text` escaped so far
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (!is_continuation(byte) && ++seen > limit + 1) break;
    append_escaped(escaped, byte);
  }
  const std::size_t length = code_points(text);
  if (code_points(escaped) <= limit && length <= limit) return escaped;
  std::string cut;
  std::size_t kept = 0;
  for (const char c : escaped) {
    if (!is_continuation(static_cast<unsigned char>(c)) && ++kept > limit) break;
    cut += c;
  }
  return cut + "\u2026 (" + std::to_string(length) + " characters)";
}

}  // namespace coupler::detail
