// SensorFrameTemplate: a layout's frame as bytes with its numbers' places, filled instead of serialized.

#include <catch2/catch.hpp>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "wire/sensor_frame_template.hpp"

using coupler::detail::SensorFrameTemplate;

namespace {

void append_double(std::string& out, double value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

// A frame laid out as protobuf lays out a Sensor frame: a double, a bool flag, a double, the time.
std::string serialize(const double* values, double time) {
  std::string out;
  out += '\x09';
  append_double(out, values[0]);
  out += '\x10';
  out += values[1] != 0.0 ? '\1' : '\0';
  out += '\x19';
  append_double(out, values[2]);
  out += '\x21';
  append_double(out, time);
  return out;
}

}  // namespace

TEST_CASE("a frame template is built for a layout with a flag and fills frames as serializing does",
          "[sensor_frame_template]") {
  const std::vector<double> first{1.5, 0.0, -2.0};
  const std::optional<SensorFrameTemplate> frame = SensorFrameTemplate::build(serialize, 3, {1}, first.data(), 0.25);
  REQUIRE(frame);
  for (const std::vector<double>& values : {first, std::vector<double>{0.0, 1.0, 3.25}, std::vector<double>{-7.0, 0.0, 0.0}}) {
    CHECK(frame->fill(values.data(), 0.5) == serialize(values.data(), 0.5));
  }
}
