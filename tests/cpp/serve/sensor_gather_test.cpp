// SensorGather: a simulation's state arrays read into a SensorLayout's flat array.

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

#include <coupler/wire/error.hpp>
#include <coupler/serve/sensor_gather.hpp>

using namespace coupler;

namespace {

// The unit quaternion (w, x, y, z) of R = Rz(yaw) Ry(pitch) Rx(roll).
std::array<double, 4> quaternion_of(double roll, double pitch, double yaw) {
  const double cr = std::cos(roll / 2), sr = std::sin(roll / 2);
  const double cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
  const double cy = std::cos(yaw / 2), sy = std::sin(yaw / 2);
  return {cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
          cr * cp * sy - sr * sp * cy};
}

}  // namespace

TEST_CASE("quaternion to rpy inverts intrinsic z-y-x Euler angles", "[sensor_gather]") {
  for (const auto& [roll, pitch, yaw] : {std::array<double, 3>{0.1, 0.2, 0.3}, std::array<double, 3>{-2.5, 1.2, -3.0},
                                         std::array<double, 3>{3.0, -0.7, 0.0}}) {
    const auto q = quaternion_of(roll, pitch, yaw);
    const auto rpy = quaternion_to_rpy(q[0], q[1], q[2], q[3]);
    CHECK(rpy[0] == Approx(roll).margin(1e-12));
    CHECK(rpy[1] == Approx(pitch).margin(1e-12));
    CHECK(rpy[2] == Approx(yaw).margin(1e-12));
  }
}

TEST_CASE("quaternion to rpy stays defined when rounding passes gimbal lock", "[sensor_gather]") {
  const double h = std::sqrt(0.5) * (1.0 + 1e-15);  // the sine of pitch comes out a hair above 1
  const auto rpy = quaternion_to_rpy(h, 0.0, h, 0.0);
  CHECK(rpy[1] == std::asin(1.0));
}

TEST_CASE("sensor gather copies each source number to its place", "[sensor_gather]") {
  const std::vector<double> qpos = {10.0, 11.0, 12.0}, qvel = {20.0, 21.0};
  SensorGather gather(5);
  gather.add_copies(qpos.data(), qpos.size(), {0, 1}, {2, 0});
  gather.add_copies(qvel.data(), qvel.size(), {4}, {1});
  std::vector<double> out(5, -1.0);
  gather.gather(out.data());
  CHECK(out == std::vector<double>{12.0, 10.0, -1.0, -1.0, 21.0});
}

TEST_CASE("sensor gather reads its sources afresh on every gather", "[sensor_gather]") {
  std::vector<double> state = {1.0};
  SensorGather gather(1);
  gather.add_copies(state.data(), state.size(), {0}, {0});
  std::vector<double> out(1);
  state[0] = 2.0;
  gather.gather(out.data());
  CHECK(out[0] == 2.0);
}

TEST_CASE("sensor gather writes a quaternion as roll, pitch and yaw", "[sensor_gather]") {
  const auto q = quaternion_of(0.1, 0.2, 0.3);
  const std::vector<double> xquat = {1.0, 0.0, 0.0, 0.0, q[0], q[1], q[2], q[3]};
  SensorGather gather(4);
  gather.add_rotations(xquat.data(), xquat.size(), {1}, {4});
  std::vector<double> out(4, -1.0);
  gather.gather(out.data());
  CHECK(out[0] == -1.0);
  CHECK(out[1] == Approx(0.1));
  CHECK(out[2] == Approx(0.2));
  CHECK(out[3] == Approx(0.3));
}

TEST_CASE("sensor gather refuses places and sources outside their arrays", "[sensor_gather]") {
  const std::vector<double> source(4, 0.0);
  SensorGather gather(3);
  CHECK_THROWS_AS(gather.add_copies(source.data(), source.size(), {3}, {0}), Error);
  CHECK_THROWS_AS(gather.add_copies(source.data(), source.size(), {0}, {4}), Error);
  CHECK_THROWS_AS(gather.add_copies(source.data(), source.size(), {0, 1}, {0}), Error);
  CHECK_THROWS_AS(gather.add_rotations(source.data(), source.size(), {1}, {0}), Error);
  CHECK_THROWS_AS(gather.add_rotations(source.data(), source.size(), {0}, {1}), Error);
}
