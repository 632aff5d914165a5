#pragma once
// The 32-bit fields of the "worlds" extension, checked on the wire.

#include <string_view>

namespace coupler::detail {

// Throws ProtocolError (MalformedFrame) when a Control frame's worlds (101) or
// one of its resetWorlds (103, packed or not) is a varint beyond 32 bits.
// protobuf keeps the low 32 bits of such a value: resetWorlds 2**32 would
// reset world 0. Fields the decoder will refuse anyway are skipped; the cost
// is bounded by the frame's size.
void check_world_fields(std::string_view frame);

}  // namespace coupler::detail
