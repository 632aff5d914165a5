#pragma once
// A message's kind, read without decoding it.

#include <optional>
#include <string_view>

#include <coupler/wire/types.hpp>

namespace coupler::detail {

// The kind (field 1, messageType, as the decoder reads it: the last one wins)
// of a frame whose top level is well formed: every field's tag fits 32 bits
// and every field lies inside the frame. The fields are skipped, never
// parsed, so the cost is bounded by the number of top-level fields, which the
// frame's size bounds. Without field 1, a HandshakeInit (protobuf's default,
// 0), as the decoder reads it. nullopt for anything else (a malformed top
// level, a kind out of range, groups): the decoder then says what is wrong.
std::optional<MessageType> scan_message_kind(std::string_view frame);

}  // namespace coupler::detail
