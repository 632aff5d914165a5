#include <coupler/transport/world_answer.hpp>

#include <cstring>
#include <utility>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/messages.hpp>

namespace coupler {
namespace {

// Each payload starts on a cache line, so a float32 or int32 image is aligned for its type.
constexpr std::size_t kAlignment = 64;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

struct Payload {
  const void* data;
  std::size_t bytes;
};

}  // namespace

std::string encode_world_answer(const WorldAnswerArrays& arrays, const std::vector<WorldImagesToSend>& images,
                                const std::vector<std::uint32_t>& image_worlds, SharedRingWriter* ring) {
  SensorMessage message;
  message.world_times.assign(arrays.times, arrays.times + arrays.world_count);
  if (!message.world_times.empty()) message.simulated_time = message.world_times.front();
  message.image_worlds = image_worlds;
  std::vector<Payload> payloads;
  payloads.reserve(2 + images.size());
  payloads.push_back({arrays.sensors, arrays.sensor_count * sizeof(double)});
  payloads.push_back({arrays.data, arrays.data_count * sizeof(double)});
  std::size_t sum = 0;
  std::size_t laid_out = 0;  // as the buffer lays them out: each on a cache line
  for (const WorldImagesToSend& image : images) payloads.push_back({image.pixels, image.bytes});
  for (const Payload& payload : payloads) {
    sum += payload.bytes;
    laid_out = aligned(laid_out) + payload.bytes;
  }
  if (ring != nullptr && sum >= ring->announced().min_bytes && laid_out <= ring->announced().slot_bytes) {
    const SharedRingWriter::Claim claim = ring->claim();
    std::vector<SharedSlice> slices;
    slices.reserve(payloads.size());
    std::size_t offset = 0;
    for (const Payload& payload : payloads) {
      offset = aligned(offset);
      if (payload.bytes) std::memcpy(claim.data + offset, payload.data, payload.bytes);
      slices.push_back(SharedSlice{claim.slot, claim.sequence, offset, payload.bytes});
      offset += payload.bytes;
    }
    ring->publish(claim);
    if (slices[0].length) message.world_sensors_shared = slices[0];
    if (slices[1].length) message.world_data_shared = slices[1];
    for (std::size_t i = 0; i < images.size(); ++i) {
      Image image{images[i].camera, images[i].kind, images[i].width, images[i].height, 0.0, std::string()};
      image.shared = slices[2 + i];
      message.world_images.push_back(std::move(image));
    }
    return encode(Message{std::move(message)});
  }
  for (const WorldImagesToSend& image : images) {
    message.world_images.push_back({image.camera, image.kind, image.width, image.height, 0.0,
                                    std::string(static_cast<const char*>(image.pixels), image.bytes)});
  }
  message.world_sensors.assign(arrays.sensors, arrays.sensors + arrays.sensor_count);
  if (arrays.data_count) message.world_data.assign(arrays.data, arrays.data + arrays.data_count);
  return encode(Message{std::move(message)});
}

}  // namespace coupler
