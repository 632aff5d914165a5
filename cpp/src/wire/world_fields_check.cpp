#include "wire/world_fields_check.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <coupler/wire/error.hpp>

#include "wire/varint.hpp"

namespace coupler::detail {

namespace {

constexpr std::uint64_t kWorldsField = 101;
constexpr std::uint64_t kResetWorldsField = 103;

void check_fits(std::uint64_t field, std::uint64_t value) {
  if (value <= std::numeric_limits<std::uint32_t>::max()) return;
  const char* name = field == kWorldsField ? "worlds" : "resetWorlds";
  throw ProtocolError(ErrorCode::MalformedFrame,
                      std::string(name) + " value " + std::to_string(value) + " is beyond the 32 bits the field holds");
}

}  // namespace

void check_world_fields(std::string_view frame) {
  std::size_t at = 0;
  while (at < frame.size()) {
    std::uint64_t tag = 0;
    if (!read_varint(frame, at, tag)) return;
    const std::uint64_t field = tag >> 3;
    const bool checked = field == kWorldsField || field == kResetWorldsField;
    std::uint64_t value = 0;
    switch (tag & 7) {
      case 0:
        if (!read_varint(frame, at, value)) return;
        if (checked) check_fits(field, value);
        break;
      case 1:
        at += 8;
        break;
      case 2: {
        if (!read_varint(frame, at, value) || value > frame.size() - at) return;
        const std::size_t end = at + static_cast<std::size_t>(value);
        if (field == kResetWorldsField) {
          const std::string_view packed = frame.substr(0, end);
          while (at < end) {
            if (!read_varint(packed, at, value)) return;
            check_fits(field, value);
          }
        }
        at = end;
        break;
      }
      case 5:
        at += 4;
        break;
      default:
        return;  // groups and invalid wire types: the decoder refuses them
    }
  }
}

}  // namespace coupler::detail
