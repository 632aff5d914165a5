#include "wire_tags.hpp"

#include <cstdint>
#include <limits>
#include <optional>

namespace coupler::detail {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// As deep as protobuf's parser goes before refusing a frame itself.
constexpr int kMaxDepth = 100;

enum class Walk { Fits, TooWide, LeftToParser };

struct Cursor {
  const char* p;
  const char* end;

  std::optional<std::uint64_t> varint(int max_bytes, int* used = nullptr) {
    std::uint64_t value = 0;
    for (int i = 0; i < max_bytes && p < end; ++i) {
      const auto byte = static_cast<std::uint8_t>(*p++);
      value |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
      if (byte < 0x80) {
        if (used != nullptr) *used = i + 1;
        return value;
      }
    }
    return std::nullopt;
  }

  bool skip(std::uint64_t bytes) {
    if (bytes > static_cast<std::uint64_t>(end - p)) return false;
    p += bytes;
    return true;
  }
};

// Walks the fields of one message (`type` null for an unknown group's),
// descending into the message fields the parser reads, until `end` or, in a
// group, the group's end tag.
Walk walk(Cursor& in, const Descriptor* type, int depth, std::optional<std::uint32_t> group) {
  if (depth > kMaxDepth) return Walk::LeftToParser;
  while (in.p < in.end) {
    const std::optional<std::uint64_t> tag = in.varint(5);
    if (!tag) return Walk::LeftToParser;  // longer than five bytes: the C++ parser refuses it too
    if (*tag > std::numeric_limits<std::uint32_t>::max()) return Walk::TooWide;
    const auto number = static_cast<std::uint32_t>(*tag >> 3);
    switch (*tag & 7) {
      case 0:
        if (!in.varint(10)) return Walk::LeftToParser;
        break;
      case 1:
        if (!in.skip(8)) return Walk::LeftToParser;
        break;
      case 5:
        if (!in.skip(4)) return Walk::LeftToParser;
        break;
      case 2: {
        const std::optional<std::uint64_t> length = in.varint(10);
        if (!length || *length > static_cast<std::uint64_t>(in.end - in.p)) return Walk::LeftToParser;
        const FieldDescriptor* field = type == nullptr ? nullptr : type->FindFieldByNumber(static_cast<int>(number));
        if (field != nullptr && field->type() == FieldDescriptor::TYPE_MESSAGE) {
          Cursor inner{in.p, in.p + *length};
          const Walk nested = walk(inner, field->message_type(), depth + 1, std::nullopt);
          if (nested != Walk::Fits) return nested;
        }
        in.p += *length;
        break;
      }
      case 3: {
        const Walk nested = walk(in, nullptr, depth + 1, number);
        if (nested != Walk::Fits) return nested;
        break;
      }
      case 4:
        return group == number ? Walk::Fits : Walk::LeftToParser;
      default:
        return Walk::LeftToParser;
    }
  }
  return group ? Walk::LeftToParser : Walk::Fits;
}

}  // namespace

bool tags_fit(std::string_view frame, const Descriptor& type) {
  Cursor in{frame.data(), frame.data() + frame.size()};
  return walk(in, &type, 0, std::nullopt) != Walk::TooWide;
}

}  // namespace coupler::detail
