#include "world_images.hpp"

#include <cstdint>
#include <iomanip>
#include <sstream>
#include <vector>

#include <coupler/controller/world_session.hpp>
#include <coupler/wire/error.hpp>

namespace {

std::uint64_t fnv1a(coupler::Span<std::uint8_t> bytes) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const std::uint8_t byte : bytes) hash = (hash ^ byte) * 1099511628211ull;
  return hash;
}

void describe(std::ostream& out, const std::optional<coupler::WorldImageStack>& stack, std::size_t i) {
  if (!stack) return;
  const coupler::ImageView picture = stack->picture(i);
  out << ' ' << picture.kind << ' ' << picture.width << 'x' << picture.height << ' ' << std::hex << std::setw(16)
      << std::setfill('0') << fnv1a(picture.bytes) << std::dec;
}

}  // namespace

std::string world_images(const std::string& address, const coupler::SessionOptions& options,
                         const std::string& camera) {
  coupler::WorldSession worlds(address, options);
  coupler::WorldStep step;
  step.images = {{camera, {}}};
  for (const coupler::CameraDescription& described : worlds.handshake().cameras) {
    if (described.name == camera) step.images.front().kinds = described.kinds;
  }
  // No controls: no world steps, so the pictures show the state the worlds are in.
  const coupler::WorldAnswer& answer = worlds.step(std::vector<double>{}, step);
  const auto found = answer.images.find(camera);
  if (found == answer.images.end()) throw coupler::Error("the answer carries no images of camera '" + camera + "'");
  const coupler::WorldCameraImages& images = found->second;
  const coupler::WorldImageStack& first =
      images.rgb ? *images.rgb : images.depth ? *images.depth : *images.segmentation;
  std::ostringstream out;
  out << "through shared memory: " << (answer.shared_memory ? "yes" : "no");
  for (std::size_t i = 0; i < first.worlds.size; ++i) {
    out << "\nworld " << first.worlds[i] << " time " << answer.times[first.worlds[i]];
    describe(out, images.rgb, i);
    describe(out, images.depth, i);
    describe(out, images.segmentation, i);
  }
  return out.str();
}
