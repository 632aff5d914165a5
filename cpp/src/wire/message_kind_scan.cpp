#include "wire/message_kind_scan.hpp"

#include <cstddef>
#include <cstdint>

#include "wire/varint.hpp"

namespace coupler::detail {

std::optional<MessageType> scan_message_kind(std::string_view frame) {
  std::optional<std::uint64_t> kind;
  std::size_t at = 0;
  while (at < frame.size()) {
    std::uint64_t tag = 0;
    if (!read_varint(frame, at, tag) || tag > UINT32_MAX || (tag >> 3) == 0) return std::nullopt;
    const std::uint64_t field = tag >> 3;
    const std::size_t left = frame.size() - at;
    std::uint64_t value = 0;
    switch (tag & 7) {
      case 0:
        if (!read_varint(frame, at, value)) return std::nullopt;
        if (field == 1) kind = value;
        break;
      case 1:
        if (field == 1 || left < 8) return std::nullopt;
        at += 8;
        break;
      case 2:
        if (field == 1 || !read_varint(frame, at, value) || value > frame.size() - at) return std::nullopt;
        at += static_cast<std::size_t>(value);
        break;
      case 5:
        if (field == 1 || left < 4) return std::nullopt;
        at += 4;
        break;
      default:
        return std::nullopt;  // groups and invalid wire types: left to the decoder
    }
  }
  // Without field 1, the kind is protobuf's default, 0: a HandshakeInit, as the decoder reads it.
  const std::uint64_t read = kind.value_or(0);
  if (read > static_cast<std::uint64_t>(MessageType::SensorRequest)) return std::nullopt;
  return static_cast<MessageType>(read);
}

}  // namespace coupler::detail
