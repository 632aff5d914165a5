#include "find_red.hpp"

#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <coupler/wire/error.hpp>

namespace {

// The point `p` turned by the unit quaternion (w, x, y, z) `q`.
std::array<double, 3> rotate(const std::vector<double>& q, const std::array<double, 3>& p) {
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const std::array<std::array<double, 3>, 3> m{{
      {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)},
  }};
  std::array<double, 3> out{};
  for (int i = 0; i < 3; ++i) out[i] = m[i][0] * p[0] + m[i][1] * p[1] + m[i][2] * p[2];
  return out;
}

}  // namespace

std::string find_red(coupler::Session& session, const std::string& camera) {
  const coupler::CameraDescription* described = nullptr;
  for (const auto& c : session.handshake().cameras) {
    if (c.name == camera) described = &c;
  }
  if (described == nullptr) throw coupler::Error("the server offers no camera named '" + camera + "'");
  const coupler::SensorReadings readings = session.sensors({{camera, {"rgb", "depth"}}});
  const coupler::CameraImages images = readings.images().at(camera);
  const coupler::Span<std::uint8_t> rgb = images.rgb->pixels<std::uint8_t>();
  const coupler::Span<float> depth = images.depth->pixels<float>();
  const std::uint32_t width = images.rgb->width, height = images.rgb->height;
  // Red whether lit or in shade, as examples/visual_servo.py finds it.
  double columns = 0.0, rows = 0.0, count = 0.0;
  for (std::uint32_t row = 0; row < height; ++row) {
    for (std::uint32_t column = 0; column < width; ++column) {
      const std::uint8_t* pixel = &rgb[(static_cast<std::size_t>(row) * width + column) * 3];
      if (pixel[0] > 40 && pixel[0] > 2 * pixel[1] && pixel[0] > 2 * pixel[2]) {
        columns += column;
        rows += row;
        count += 1.0;
      }
    }
  }
  if (count == 0.0) throw coupler::Error("camera '" + camera + "' sees no red");
  const double u = columns / count, v = rows / count;
  const double d = depth[static_cast<std::size_t>(std::lround(v)) * width + static_cast<std::size_t>(std::lround(u))];
  // The camera looks along its -z axis with y up; image rows go down.
  const std::array<double, 3> in_camera{(u - described->cx) / described->fx * d,
                                        -(v - described->cy) / described->fy * d, -d};
  std::array<double, 3> world = rotate(described->quaternion, in_camera);
  for (int i = 0; i < 3; ++i) world[i] += described->position[i];
  std::ostringstream out;
  out << std::fixed << std::setprecision(4) << "red seen by " << camera << " at pixel (" << u << ", " << v
      << "), depth " << d << " m, world (" << world[0] << ", " << world[1] << ", " << world[2] << ") m";
  return out.str();
}
