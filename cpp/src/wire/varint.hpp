#pragma once
// Base-128 varints, read straight from a frame (protobuf's wire encoding of integers).

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace coupler::detail {

// Reads a varint of at most 10 bytes at `at`, advancing it; false past the end or when longer.
inline bool read_varint(std::string_view frame, std::size_t& at, std::uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 70 && at < frame.size(); shift += 7) {
    const auto byte = static_cast<std::uint8_t>(frame[at++]);
    value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace coupler::detail
