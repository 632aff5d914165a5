#pragma once
// The most bytes a frame takes besides the numbers and pixels it carries,
// counted one way for both ends: a server sizes its limits and buffers by
// these, and a client checks its own frame limit by them before it sends.

#include <cstddef>

namespace coupler {

// A frame of the "worlds" extension besides its arrays' numbers: the kind, the
// time, the count of worlds, steps, each field's tag and length.
inline constexpr std::size_t kWorldFrameOverhead = 64;
// An image besides its pixels: its camera and kind (short names), size and time.
inline constexpr std::size_t kImageOverhead = 256;

// The answer to a Control for `worlds` worlds of `sensor_width` readings each,
// with `data_width` numbers of --world-data each, without images.
constexpr std::size_t world_answer_bytes(std::size_t worlds, std::size_t sensor_width, std::size_t data_width = 0) {
  return sizeof(double) * worlds * (sensor_width + data_width + 1) + kWorldFrameOverhead;
}

// A Control for `worlds` worlds of `control_width` numbers each, every world
// reset (without a given state, a varint of at most 5 bytes each) or stepped.
constexpr std::size_t world_control_bytes(std::size_t worlds, std::size_t control_width) {
  return sizeof(double) * worlds * control_width + 5 * worlds + kWorldFrameOverhead;
}

}  // namespace coupler
