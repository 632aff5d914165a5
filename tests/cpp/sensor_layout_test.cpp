// SensorLayout: the flat order of a handshake's sensor numbers, and frames
// encoded from it that equal the codec's, byte for byte.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include <coupler/codec.hpp>
#include <coupler/sensor_layout.hpp>

#include "vector_files.hpp"

using namespace coupler;
using V = ValueType;
using Part = SensorSlot::Part;

namespace {

// The numbers of a message in the layout's order: the inverse of message().
std::vector<double> flatten(const SensorLayout& layout, const SensorMessage& message) {
  std::vector<double> values(layout.size());
  for (const SensorSlot& slot : layout.slots()) {
    const ObjectSensors& o = message.object(slot.object);
    auto put = [&](const std::vector<double>& numbers, std::size_t at) {
      std::copy(numbers.begin(), numbers.end(), values.begin() + static_cast<long>(at));
    };
    switch (slot.part) {
      case Part::Angles: put(o.angles, slot.offset); break;
      case Part::AngularVelocities: put(o.angular_velocities, slot.offset); break;
      case Part::Torques: put(o.torques, slot.offset); break;
      case Part::Forces:
        for (std::size_t j = 0; j < o.forces.size(); ++j) put(o.forces[j], slot.offset + 3 * j);
        break;
      case Part::ObjectSensor: put(o.object_sensors.at(slot.index).value, slot.offset); break;
      case Part::NamedSensor: put(o.sensor(slot.sensor).at(slot.index).value, slot.offset); break;
    }
  }
  return values;
}

HandshakeMessage small_scene() {
  HandshakeMessage h;
  ObjectDescription& arm = h.objects["arm"];
  arm.joint_sensors = {"shoulder", "elbow"};
  arm.joint_sensor_types = {V::Force3D, V::Angle, V::Torque1D};  // order here does not matter
  arm.object_sensors = {V::Position, V::RPY};
  arm.sensors = {{"wrist", {V::Force3D, V::Torque3D}}, {"grip", {V::Activated}}};
  h.objects["box"].object_sensors = {V::Position};
  h.objects["anchor"];  // an object with no sensors still appears in every frame
  h.objects["cart"].sensors["bumper"];  // and so does a named sensor without readings
  return h;
}

std::vector<double> random_values(std::size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> number(-1e3, 1e3);
  std::vector<double> values(size);
  for (double& v : values) v = number(generator);
  return values;
}

}  // namespace

TEST_CASE("the layout lists objects in name order, joint vectors, object sensors, then named sensors by name") {
  const SensorLayout layout(small_scene());
  struct Expected {
    const char* object;
    Part part;
    const char* sensor;
    std::size_t index, offset, size;
  };
  const std::vector<Expected> expected = {
      {"arm", Part::Angles, "", 0, 0, 2},
      {"arm", Part::Torques, "", 0, 2, 2},
      {"arm", Part::Forces, "", 0, 4, 6},
      {"arm", Part::ObjectSensor, "", 0, 10, 3},
      {"arm", Part::ObjectSensor, "", 1, 13, 3},
      {"arm", Part::NamedSensor, "grip", 0, 16, 1},
      {"arm", Part::NamedSensor, "wrist", 0, 17, 3},
      {"arm", Part::NamedSensor, "wrist", 1, 20, 3},
      {"box", Part::ObjectSensor, "", 0, 23, 3},
  };
  REQUIRE(layout.slots().size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO(i);
    const SensorSlot& slot = layout.slots()[i];
    CHECK(slot.object == expected[i].object);
    CHECK(slot.part == expected[i].part);
    CHECK(slot.sensor == expected[i].sensor);
    CHECK(slot.index == expected[i].index);
    CHECK(slot.offset == expected[i].offset);
    CHECK(slot.size == expected[i].size);
  }
  CHECK(layout.size() == 26);
}

TEST_CASE("the shared sensor vector encodes from its numbers byte for byte") {
  const auto handshake = decode_as<HandshakeMessage>(read_vector_file("handshake"));
  const std::string frame = read_vector_file("sensor");
  const auto message = decode_as<SensorMessage>(frame);
  SensorLayout layout(handshake);
  const std::vector<double> values = flatten(layout, message);
  CHECK(layout.encode(values.data(), message.simulated_time) == frame);
  CHECK(encode(layout.message(values.data(), message.simulated_time)) == frame);
}

TEST_CASE("every frame equals the codec's frame of the same message, frame after frame") {
  SensorLayout layout(small_scene());
  for (unsigned seed = 0; seed < 20; ++seed) {
    INFO("seed " << seed);
    std::vector<double> values = random_values(layout.size(), seed);
    values[16] = seed % 2 == 0 ? 0.0 : -3.5;  // the Activated reading: false, then true
    const double time = 0.001 * seed;
    const std::string frame = layout.encode(values.data(), time);
    CHECK(frame == encode(layout.message(values.data(), time)));
    CHECK(flatten(layout, decode_as<SensorMessage>(frame))[16] == (seed % 2 == 0 ? 0.0 : 1.0));
  }
}

TEST_CASE("zeros, negative zeros and non-finite numbers encode as the codec encodes them") {
  SensorLayout layout(small_scene());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double special : {0.0, -0.0, nan, inf, -inf}) {
    const std::vector<double> values(layout.size(), special);
    for (const double time : {0.0, -0.0, 2.5}) {
      INFO("value " << special << ", time " << time);
      CHECK(layout.encode(values.data(), time) == encode(layout.message(values.data(), time)));
    }
  }
}

TEST_CASE("a zero time leaves simVars out, as the codec does, and a later time puts it back") {
  SensorLayout layout(small_scene());
  const std::vector<double> values(layout.size(), 1.0);
  const std::string at_zero = layout.encode(values.data(), 0.0);
  const std::string later = layout.encode(values.data(), 0.5);
  CHECK(later.size() == at_zero.size() + 11);  // tag, length, then the double with its tag
  CHECK(decode_as<SensorMessage>(later).simulated_time == 0.5);
  CHECK(layout.encode(values.data(), 0.0) == at_zero);
}

TEST_CASE("message() gives every object and named sensor, and Activated as 1 or 0") {
  const SensorLayout layout(small_scene());
  std::vector<double> values(layout.size(), 0.25);
  const SensorMessage message = layout.message(values.data(), 1.0);
  CHECK(message.objects.size() == 4);
  CHECK(message.object("anchor").object_sensors.empty());
  CHECK(message.object("cart").sensor("bumper").empty());
  CHECK(message.object("arm").angles == std::vector<double>{0.25, 0.25});
  CHECK(message.object("arm").angular_velocities.empty());
  CHECK(message.object("arm").forces.size() == 2);
  CHECK(message.object("arm").sensor("grip")[0].value == std::vector<double>{1.0});
}

TEST_CASE("a handshake naming a sensor type no reading can carry is refused") {
  HandshakeMessage h;
  h.objects["arm"].sensors["odd"] = {V::Multiple};
  CHECK_THROWS_AS(SensorLayout(h), Error);
}
