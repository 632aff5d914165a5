#pragma once
// Where each number of a SensorLayout's array comes from in a simulation's
// own state arrays, and the copy from there: reading the state for a
// SensorMessage becomes one pass over preallocated memory, whatever the scene.

#include <array>
#include <cstddef>
#include <vector>

namespace coupler {

// Roll, pitch, yaw (rad) of the unit quaternion (w, x, y, z): the rotation is
// yaw about z, then pitch about the new y, then roll about the new x
// (R = Rz(yaw) Ry(pitch) Rx(roll)); pitch is in [-pi/2, pi/2].
std::array<double, 3> quaternion_to_rpy(double w, double x, double y, double z);

class SensorGather {
 public:
  // Fills arrays of `size` numbers.
  explicit SensorGather(std::size_t size) : size_(size) {}

  std::size_t size() const noexcept { return size_; }

  // out[places[k]] = source[sources[k]] for every k. `source` holds
  // `source_size` numbers and must outlive this object. Throws coupler::Error
  // when a place or a source lies outside its array, or the lists differ in length.
  void add_copies(const double* source, std::size_t source_size, const std::vector<std::size_t>& places,
                  const std::vector<std::size_t>& sources);

  // out[places[k] .. places[k] + 3] = the roll, pitch and yaw of the
  // quaternion at source[starts[k] .. starts[k] + 4]. Checked as add_copies.
  void add_rotations(const double* source, std::size_t source_size, const std::vector<std::size_t>& places,
                     const std::vector<std::size_t>& starts);

  // Reads every source into `out` (size() numbers); places no copy names are left as they are.
  void gather(double* out) const;

 private:
  struct Copy {
    std::size_t place;
    const double* source;
  };

  std::size_t size_;
  std::vector<Copy> copies_;
  std::vector<Copy> rotations_;
};

}  // namespace coupler
