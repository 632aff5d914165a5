#include <coupler/wire/peer_text.hpp>

namespace coupler {

namespace {

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

std::size_t code_points(const std::string& text) {
  std::size_t count = 0;
  for (const char c : text) count += is_continuation(static_cast<unsigned char>(c)) ? 0 : 1;
  return count;
}

void append_escaped(std::string& out, unsigned char byte) {
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

}  // namespace

std::string shown_peer_text(const std::string& text, std::size_t limit) {
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

}  // namespace coupler
