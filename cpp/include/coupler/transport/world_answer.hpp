#pragma once
// The SensorMessage answering a Control for every world of a batched server
// (the "worlds" extension), written by one function for every serving path:
// through the socket, or with its big arrays in a buffer of the shared-memory
// ring (the "shm" extension) when the Control asked for it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <coupler/transport/shared_ring.hpp>

namespace coupler {

// One kind of image of one camera, of several worlds: `bytes` of pixels stacked world by world.
struct WorldImagesToSend {
  std::string camera;
  std::string kind;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  const void* pixels = nullptr;
  std::size_t bytes = 0;
};

// Every world's readings, times and --world-data arrays, world-major, read where they lie.
struct WorldAnswerArrays {
  const double* sensors = nullptr;
  std::size_t sensor_count = 0;
  const double* times = nullptr;
  std::size_t world_count = 0;
  const double* data = nullptr;
  std::size_t data_count = 0;
};

// The answer's frame: world 0's time in simVars, as ever. With a `ring`, the
// sensors, data and images are written into its next buffer and the frame
// says where they lie, when together they take the ring's min_bytes or more
// and fit one buffer; the frame carries them otherwise.
std::string encode_world_answer(const WorldAnswerArrays& arrays, const std::vector<WorldImagesToSend>& images = {},
                                const std::vector<std::uint32_t>& image_worlds = {}, SharedRingWriter* ring = nullptr);

}  // namespace coupler
