#pragma once
// Serializing protobuf messages the one way coupler sends them.

#include <cmath>
#include <string>

#include <google/protobuf/message_lite.h>

namespace coupler::detail {

// Map entries sorted by key, so equal messages give equal frames in C++ and
// Python alike.
std::string serialize_deterministic(const google::protobuf::MessageLite& proto);

// Whether a time goes on the wire. Click leaves simSettings and simVars out
// at +0.0 (proto3 writes no default); doing the same keeps its frames
// byte-identical when re-encoded. -0.0 is sent, so it survives a round trip.
inline bool is_sent(double time) { return time != 0.0 || std::signbit(time); }

}  // namespace coupler::detail
