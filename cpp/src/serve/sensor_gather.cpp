#include <coupler/serve/sensor_gather.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <coupler/wire/error.hpp>

namespace coupler {

namespace {

void check_lists(const std::vector<std::size_t>& places, const std::vector<std::size_t>& sources) {
  if (places.size() != sources.size()) {
    throw Error("a gather needs one source per place, got " + std::to_string(places.size()) + " places and " +
                std::to_string(sources.size()) + " sources");
  }
}

void check_inside(std::size_t first, std::size_t count, std::size_t size, const char* what) {
  if (first > size || count > size - first) {
    throw Error(std::string(what) + " " + std::to_string(first) + ".." + std::to_string(first + count) +
                " lies outside an array of " + std::to_string(size));
  }
}

}  // namespace

std::array<double, 3> quaternion_to_rpy(double w, double x, double y, double z) {
  // Written term by term as the reference formula, so every platform rounds alike.
  const double roll = std::atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y));
  // Rounding can push the sine a hair past 1 at gimbal lock.
  const double pitch = std::asin(std::max(-1.0, std::min(1.0, 2.0 * (w * y - z * x))));
  const double yaw = std::atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z));
  return {roll, pitch, yaw};
}

void SensorGather::add_copies(const double* source, std::size_t source_size, const std::vector<std::size_t>& places,
                              const std::vector<std::size_t>& sources) {
  check_lists(places, sources);
  for (std::size_t k = 0; k < places.size(); ++k) {
    check_inside(places[k], 1, size_, "gathered place");
    check_inside(sources[k], 1, source_size, "gathered source");
  }
  for (std::size_t k = 0; k < places.size(); ++k) copies_.push_back({places[k], source + sources[k]});
}

void SensorGather::add_rotations(const double* source, std::size_t source_size,
                                 const std::vector<std::size_t>& places, const std::vector<std::size_t>& starts) {
  check_lists(places, starts);
  for (std::size_t k = 0; k < places.size(); ++k) {
    check_inside(places[k], 3, size_, "gathered roll, pitch and yaw");
    check_inside(starts[k], 4, source_size, "gathered quaternion");
  }
  for (std::size_t k = 0; k < places.size(); ++k) rotations_.push_back({places[k], source + starts[k]});
}

void SensorGather::gather(double* out) const {
  for (const Copy& copy : copies_) out[copy.place] = *copy.source;
  for (const Copy& rotation : rotations_) {
    const double* q = rotation.source;
    const std::array<double, 3> rpy = quaternion_to_rpy(q[0], q[1], q[2], q[3]);
    std::copy(rpy.begin(), rpy.end(), out + rotation.place);
  }
}

}  // namespace coupler
