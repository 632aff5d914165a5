// SensorLayout: the flat order of a handshake's sensor numbers, frames
// encoded from it that equal the codec's, byte for byte, and frames read
// back into it as the codec reads them.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/sensor_layout.hpp>

#include "vector_files.hpp"
#include "wire_writer.hpp"

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

TEST_CASE("read takes back the numbers and time of every frame encode writes") {
  SensorLayout layout(small_scene());
  for (unsigned seed = 0; seed < 10; ++seed) {
    INFO("seed " << seed);
    std::vector<double> values = random_values(layout.size(), seed);
    values[16] = seed % 2 == 0 ? 0.0 : -3.5;  // the Activated reading
    const std::string frame = layout.encode(values.data(), 0.25 * seed);
    std::vector<double> back(layout.size(), -1.0);
    const std::optional<double> time = layout.read(frame, back.data());
    REQUIRE(time);
    CHECK(*time == 0.25 * seed);
    values[16] = seed % 2 == 0 ? 0.0 : 1.0;
    CHECK(back == values);
  }
}

TEST_CASE("read takes the shared sensor vector with the numbers decode reads") {
  SensorLayout layout(decode_as<HandshakeMessage>(read_vector_file("handshake")));
  const std::string frame = read_vector_file("sensor");
  const auto message = decode_as<SensorMessage>(frame);
  std::vector<double> back(layout.size());
  const std::optional<double> time = layout.read(frame, back.data());
  REQUIRE(time);
  CHECK(*time == message.simulated_time);
  CHECK(back == flatten(layout, message));
}

TEST_CASE("read leaves every other message kind to decode") {
  SensorLayout layout(small_scene());
  std::vector<double> back(layout.size());
  const Message others[] = {HandshakeInitMessage{}, HandshakeMessage{small_scene()}, ControlMessage{},
                            SensorRequestMessage{}, ResetMessage{}, ErrorMessage{static_cast<int>(ErrorCode::ServerBusy), "busy"}};
  for (const Message& other : others) {
    INFO(describe(other));
    CHECK_FALSE(layout.read(encode(other), back.data()));
  }
}

TEST_CASE("read leaves a SensorMessage of another shape to decode") {
  SensorLayout layout(small_scene());
  const std::vector<double> values(layout.size(), 0.5);
  const SensorMessage fitting = layout.message(values.data(), 1.0);
  std::vector<double> back(layout.size());
  REQUIRE(layout.read(encode(fitting), back.data()));

  using Change = void (*)(SensorMessage&);
  const std::pair<const char*, Change> changes[] = {
      {"an object missing", [](SensorMessage& m) { m.objects.erase("box"); }},
      {"an object more", [](SensorMessage& m) { m.objects["zebra"]; }},
      {"an angle fewer", [](SensorMessage& m) { m.objects["arm"].angles.pop_back(); }},
      {"an angle more", [](SensorMessage& m) { m.objects["arm"].angles.push_back(0.0); }},
      {"an undeclared joint part", [](SensorMessage& m) { m.objects["arm"].angular_velocities = {0.1, 0.2}; }},
      {"a joint force fewer", [](SensorMessage& m) { m.objects["arm"].forces.pop_back(); }},
      {"an object sensor more", [](SensorMessage& m) { m.objects["box"].object_sensors.push_back({V::RPY, {0, 0, 0}}); }},
      {"an object sensor of another type",
       [](SensorMessage& m) { m.objects["box"].object_sensors[0] = {V::Velocity3D, {0, 0, 0}}; }},
      {"a named sensor missing", [](SensorMessage& m) { m.objects["cart"].sensors.clear(); }},
      {"a named sensor more", [](SensorMessage& m) { m.objects["cart"].sensors["horn"]; }},
      {"a named reading more", [](SensorMessage& m) { m.objects["cart"].sensors["bumper"].push_back({V::Activated, {1}}); }},
      {"a named reading of another type", [](SensorMessage& m) { m.objects["arm"].sensors["grip"][0] = {V::Angle, {1}}; }},
  };
  for (const auto& [what, change] : changes) {
    INFO(what);
    SensorMessage changed = fitting;
    change(changed);
    CHECK_FALSE(layout.read(encode(changed), back.data()));
  }
}

TEST_CASE("read leaves a vector without three numbers to decode, which refuses it") {
  HandshakeMessage h;
  h.objects["box"].object_sensors = {V::Position};
  SensorLayout layout(h);
  auto frame_with = [](const std::vector<double>& numbers) {
    WireWriter vec, sensor, object, entry, frame;
    vec.packed_doubles_field(1, numbers);
    sensor.bytes_field(4, vec.bytes());     // Sensor.position
    object.bytes_field(4, sensor.bytes());  // Object.objectSensors
    entry.bytes_field(1, "box");
    entry.bytes_field(2, object.bytes());
    frame.varint_field(1, 3);  // SensorMessageType
    frame.bytes_field(3, entry.bytes());
    return frame.bytes();
  };
  std::vector<double> back(layout.size());
  REQUIRE(layout.read(frame_with({1, 2, 3}), back.data()));
  CHECK(back == std::vector<double>{1, 2, 3});
  CHECK_FALSE(layout.read(frame_with({1, 2}), back.data()));
  CHECK_THROWS_AS(decode(frame_with({1, 2})), ProtocolError);
}

TEST_CASE("whatever bytes read takes, decode reads as the same SensorMessage") {
  SensorLayout layout(small_scene());
  const std::vector<double> values = random_values(layout.size(), 3);
  const std::string valid = layout.encode(values.data(), 2.0);
  std::mt19937 generator(11);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> place(0, valid.size() - 1);
  std::size_t taken = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string frame = valid;
    if (round % 3 == 0) {
      frame.resize(place(generator));  // truncated
    } else if (round % 3 == 1) {
      for (int flips = 0; flips < 1 + round % 4; ++flips) frame[place(generator)] = static_cast<char>(byte(generator));
    } else {
      frame.resize(place(generator));  // random bytes
      for (char& c : frame) c = static_cast<char>(byte(generator));
    }
    std::vector<double> back(layout.size());
    std::optional<double> time;
    REQUIRE_NOTHROW(time = layout.read(frame, back.data()));
    if (!time) continue;
    ++taken;
    // Compared as frames, so that NaN readings compare equal.
    CHECK(encode(decode(frame)) == encode(layout.message(back.data(), *time)));
  }
  CHECK(taken > 0);  // some changed numbers keep the frame's shape
}

TEST_CASE("read takes a fitting frame after refusing a larger one") {
  SensorLayout layout(small_scene());
  const std::vector<double> values = random_values(layout.size(), 5);
  SensorMessage larger = layout.message(values.data(), 1.0);
  larger.objects["arm"].angles.resize(1000, 0.5);
  std::vector<double> back(layout.size());
  CHECK_FALSE(layout.read(encode(larger), back.data()));
  std::vector<double> expected = values;
  expected[16] = 1.0;
  REQUIRE(layout.read(layout.encode(values.data(), 1.0), back.data()));
  CHECK(back == expected);
}

// A server answers step after step with frames that differ only in their numbers; read copies those out of a
// frame laid out as the last one it read in full. These hold it to reading what decode reads, frame after frame.
TEST_CASE("frame after frame of new numbers, read gives the numbers and time decode reads") {
  SensorLayout writer(small_scene());
  SensorLayout reader(small_scene());
  for (unsigned step = 0; step < 40; ++step) {
    INFO("step " << step);
    std::vector<double> values = random_values(writer.size(), 100 + step);
    values[16] = (step / 7) % 2 == 0 ? 1.0 : 0.0;  // the Activated reading flips now and then
    const double time = 0.001 * (step + 1);
    const std::string frame = writer.encode(values.data(), time);
    std::vector<double> back(reader.size(), -1.0);
    const std::optional<double> read_time = reader.read(frame, back.data());
    REQUIRE(read_time);
    const auto message = decode_as<SensorMessage>(frame);
    CHECK(*read_time == message.simulated_time);
    CHECK(back == flatten(reader, message));
  }
}

TEST_CASE("after frames of one shape, a frame of the same length that differs outside its numbers is left to decode") {
  SensorLayout layout(small_scene());
  std::vector<double> values = random_values(layout.size(), 7);
  std::vector<double> back(layout.size());
  for (int step = 1; step <= 3; ++step) REQUIRE(layout.read(layout.encode(values.data(), 0.5 * step), back.data()));
  std::string renamed = layout.encode(values.data(), 2.0);
  const std::size_t name = renamed.find("anchor");
  REQUIRE(name != std::string::npos);
  renamed[name + 5] = 'x';  // "anchox": an object the handshake does not have
  CHECK_FALSE(layout.read(renamed, back.data()));
  // And the frames it did learn are still read.
  values[0] = 42.0;
  REQUIRE(layout.read(layout.encode(values.data(), 3.0), back.data()));
  CHECK(back[0] == 42.0);
}

TEST_CASE("a zero time the encoder leaves out is read as zero after frames with a time") {
  SensorLayout layout(small_scene());
  const std::vector<double> values = random_values(layout.size(), 8);
  std::vector<double> back(layout.size());
  REQUIRE(layout.read(layout.encode(values.data(), 1.0), back.data()));
  const std::optional<double> time = layout.read(layout.encode(values.data(), 0.0), back.data());
  REQUIRE(time);
  CHECK(*time == 0.0);
}

TEST_CASE("frames at time zero, however many, do not keep read from taking later frames by their layout") {
  SensorLayout writer(small_scene());
  SensorLayout reader(small_scene());
  std::vector<double> values = random_values(writer.size(), 9);
  std::vector<double> back(reader.size());
  for (int i = 0; i < 5; ++i) REQUIRE(reader.read(writer.encode(values.data(), 0.0), back.data()));
  for (int step = 1; step <= 3; ++step) {
    values[0] = step;
    REQUIRE(reader.read(writer.encode(values.data(), 0.1 * step), back.data()));
    CHECK(back[0] == step);
  }
}
