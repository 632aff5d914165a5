#pragma once
// Defaults and limits of the protocol's two ends, each defined once here: the
// C++ options take their defaults from these, and the Python binding exports
// them (coupler.limits), so no other file writes the numbers again.

#include <chrono>
#include <cstdint>

namespace coupler::limits {

// Where a server listens and a client connects when told nothing else.
inline constexpr char kDefaultAddress[] = "tcp://127.0.0.1:5555";
// How long a client waits for an answer by default.
inline constexpr std::chrono::milliseconds kRequestTimeout{5000};
// ZMTP heartbeats: a PING after this much silence; a connection that stays
// silent for kHeartbeatTimeoutIntervals of them is dropped.
inline constexpr std::chrono::milliseconds kHeartbeatInterval{1000};
inline constexpr int kHeartbeatTimeoutIntervals = 3;
inline constexpr std::chrono::milliseconds kHeartbeatTimeout = kHeartbeatInterval * kHeartbeatTimeoutIntervals;
// Frames larger than this are never read (the sender's connection is dropped).
inline constexpr std::int64_t kMaxFrameBytes = std::int64_t{1} << 20;
// A connection that has not finished its ZMTP (and CURVE) handshake by then is
// dropped: ZeroMQ's own 30 s lets stalled greetings use up file descriptors.
inline constexpr std::chrono::milliseconds kHandshakeTimeout{3000};
// Holding controls for more steps than this in one request would stall the
// server for every other purpose; a controller wanting more sends again.
inline constexpr std::uint32_t kMaxStepsPerControl = 100000;

// The widest values a command line takes for these (coupler's flags and the
// democlient's): beyond them a value is a typo, and ZeroMQ takes times as int
// milliseconds and the frame limit as an int, so larger ones would overflow
// on the way to the socket.
inline constexpr double kMinTimeoutSeconds = 0.001, kMaxTimeoutSeconds = 86400.0;
inline constexpr double kMinHeartbeatSeconds = 0.01, kMaxHeartbeatSeconds = 3600.0;
inline constexpr double kMinHandshakeTimeoutSeconds = 0.1, kMaxHandshakeTimeoutSeconds = 600.0;
inline constexpr std::int64_t kLargestFrameLimit = 2147483647;
// The most extra Control round trips a demo client's --range asks for.
inline constexpr std::uint64_t kMaxRange = 1000000000;

}  // namespace coupler::limits
