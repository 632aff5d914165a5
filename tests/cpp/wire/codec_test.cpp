// The codec: what decodes, what re-encodes unchanged, and what is rejected.

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <coupler/wire/codec.hpp>

#include "wire_writer.hpp"

using namespace coupler;

namespace {

SensorMessage two_sensor_objects() {
  SensorMessage message;
  message.simulated_time = 0.25;
  ObjectSensors& arm = message.objects["arm"];
  arm.angles = {0.1, 0.2};
  arm.angular_velocities = {0.0, -0.5};
  arm.torques = {1.5, 2.5};
  arm.forces = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}};
  arm.sensors["wrist_ft"] = {{ValueType::Force3D, {0.0, 0.0, -9.81}}, {ValueType::Torque3D, {0.1, 0.2, 0.3}}};
  arm.sensors["gripper"] = {{ValueType::Activated, {1.0}}};
  message.objects["box"].object_sensors = {{ValueType::Position, {0.5, 0.0, 0.8}}, {ValueType::RPY, {0.0, 0.0, 1.57}}};
  return message;
}

}  // namespace

TEST_CASE("a sensor message survives encode and decode with every value in place") {
  const SensorMessage sent = two_sensor_objects();
  const auto received = decode_as<SensorMessage>(encode(sent));
  REQUIRE(received.simulated_time == 0.25);
  const ObjectSensors& arm = received.object("arm");
  CHECK(arm.angles == sent.objects.at("arm").angles);
  CHECK(arm.forces == sent.objects.at("arm").forces);
  REQUIRE(arm.sensor("wrist_ft").size() == 2);
  CHECK(arm.sensor("wrist_ft")[1].type == ValueType::Torque3D);
  CHECK(arm.sensor("wrist_ft")[1].value == std::vector<double>{0.1, 0.2, 0.3});
  CHECK(arm.sensor("gripper")[0].value == std::vector<double>{1.0});
  CHECK(received.object("box").object_sensors[1].type == ValueType::RPY);
}

TEST_CASE("encoding is deterministic whatever order map entries were inserted in") {
  SensorMessage a;
  a.objects["b"];
  a.objects["a"];
  SensorMessage b;
  b.objects["a"];
  b.objects["b"];
  CHECK(encode(a) == encode(b));
  CHECK(encode(decode(encode(a))) == encode(a));
}

TEST_CASE("a handshake without an explicit control type derives it from its controls") {
  HandshakeMessage handshake;
  handshake.objects["a"].control_types = {ValueType::Angle, ValueType::Angle};
  CHECK(decode_as<HandshakeMessage>(encode(handshake)).control_type == ValueType::Angle);
  handshake.objects["b"].control_types = {ValueType::Torque1D};
  CHECK(decode_as<HandshakeMessage>(encode(handshake)).control_type == ValueType::Multiple);
}

TEST_CASE("a handshake carries what each control drives") {
  HandshakeMessage handshake;
  auto& arm = handshake.objects["arm"];
  arm.controls = {"shoulder_servo", "thruster"};
  arm.control_types = {ValueType::Angle, ValueType::Force1D};
  arm.control_targets = {"shoulder", ""};
  CHECK(decode_as<HandshakeMessage>(encode(handshake)).objects.at("arm").control_targets == arm.control_targets);
}

TEST_CASE("decode rejects control targets of another count than the controls") {
  HandshakeMessage handshake;
  auto& arm = handshake.objects["arm"];
  arm.controls = {"a", "b"};
  arm.control_types = {ValueType::Angle, ValueType::Angle};
  arm.control_targets = {"a"};
  CHECK_THROWS_WITH(decode(encode(handshake)),
                    Catch::Contains("handshake object 'arm' has 2 controls but 1 controlTargets"));
}

TEST_CASE("the steps extension is absent from the frame unless set, so Click peers see a plain control") {
  const ControlMessage plain = ControlMessage::builder().object("r").values({1.0});
  const ControlMessage held = ControlMessage::builder().object("r").values({1.0}).steps(10);
  CHECK(encode(held).size() > encode(plain).size());
  CHECK(decode_as<ControlMessage>(encode(held)).steps == 10);
  CHECK(decode_as<ControlMessage>(encode(plain)).steps == 0);
}

TEST_CASE("a steps wider than 32 bits on the wire is read whole, not truncated to its low bits") {
  WireWriter frame;
  frame.varint_field(1, 2);  // Control
  frame.varint_field(100, (std::uint64_t{1} << 32) + 5);
  CHECK(decode_as<ControlMessage>(frame.bytes()).steps == (std::uint64_t{1} << 32) + 5);
}

TEST_CASE("a steps wider than 32 bits re-encodes as the same uint64") {
  const ControlMessage held = ControlMessage::builder().object("r").values({1.0}).steps(std::uint64_t{1} << 60);
  CHECK(decode_as<ControlMessage>(encode(held)).steps == std::uint64_t{1} << 60);
}

TEST_CASE("a world field beyond 32 bits is refused as a malformed frame, not truncated to another world") {
  for (const int field : {101, 103}) {
    WireWriter frame;
    frame.varint_field(1, 2);  // Control
    frame.varint_field(field, std::uint64_t{1} << 32);
    try {
      decode(frame.bytes());
      FAIL("no exception");
    } catch (const ProtocolError& e) {
      CHECK(e.code() == ErrorCode::MalformedFrame);
      CHECK_THAT(e.what(), Catch::Contains(std::string(field == 101 ? "worlds" : "resetWorlds") +
                                           " value 4294967296 is beyond the 32 bits the field holds"));
    }
  }
}

TEST_CASE("an empty frame decodes as a HandshakeInit of undefined version") {
  const auto init = decode_as<HandshakeInitMessage>("");
  CHECK(init.version == 0);
}

TEST_CASE("decode rejects bytes that are not protobuf") {
  CHECK_THROWS_WITH(decode(std::string("\xff\xff\xff\xff", 4)), Catch::Contains("not a protobuf message"));
}

TEST_CASE("decode rejects a truncated frame and names the kind it was reading") {
  const std::string frame = encode(two_sensor_objects());
  // The same text as the Python codec's, so both servers answer it alike.
  CHECK_THROWS_WITH(decode(frame.substr(0, frame.size() - 5)),
                    Catch::EndsWith("bytes is not a valid Sensor message: truncated or corrupt"));
}

TEST_CASE("decode rejects an unknown message type and names its number") {
  WireWriter frame;
  frame.varint_field(1, 42);
  try {
    decode(frame.bytes());
    FAIL("no exception");
  } catch (const ProtocolError& e) {
    CHECK(e.code() == ErrorCode::UnexpectedMessage);
    CHECK_THAT(e.what(), Catch::Contains("unknown message type 42"));
  }
}

TEST_CASE("decode rejects a control object that sets two value lists") {
  WireWriter object;
  object.packed_doubles_field(1, {1.0});  // angles
  object.packed_doubles_field(5, {1.0});  // values
  WireWriter entry;
  entry.bytes_field(1, "robot1");
  entry.bytes_field(2, object.bytes());
  WireWriter frame;
  frame.varint_field(1, 2);
  frame.bytes_field(2, entry.bytes());
  CHECK_THROWS_WITH(decode(frame.bytes()), Catch::Contains("control object 'robot1' sets 2 of"));
}

TEST_CASE("decode rejects a vector sensor without three numbers") {
  WireWriter vec;
  vec.packed_doubles_field(1, {1.0, 2.0});
  WireWriter sensor;
  sensor.bytes_field(4, vec.bytes());  // position
  WireWriter object;
  object.bytes_field(4, sensor.bytes());  // objectSensors
  WireWriter entry;
  entry.bytes_field(1, "box");
  entry.bytes_field(2, object.bytes());
  WireWriter frame;
  frame.varint_field(1, 3);
  frame.bytes_field(3, entry.bytes());
  CHECK_THROWS_WITH(decode(frame.bytes()), Catch::Contains("has 2 numbers, not 3"));
}

TEST_CASE("decode rejects an unknown value type in a handshake") {
  WireWriter object;
  object.varint_field(8, 77);  // controlTypesInOrder
  WireWriter entry;
  entry.bytes_field(1, "robot1");
  entry.bytes_field(2, object.bytes());
  WireWriter frame;
  frame.varint_field(1, 1);
  frame.bytes_field(4, entry.bytes());
  CHECK_THROWS_WITH(decode(frame.bytes()), Catch::Contains("unknown value type 77 in handshake object 'robot1'"));
}

TEST_CASE("decode_as rejects a frame of another kind") {
  CHECK_THROWS_WITH(decode_as<SensorMessage>(encode(ResetMessage{})), Catch::Contains("expected Sensor but got Reset"));
}

TEST_CASE("encode refuses a sensor value with the wrong count of numbers") {
  SensorMessage message;
  message.objects["a"].object_sensors = {{ValueType::Position, {1.0}}};
  CHECK_THROWS_AS(encode(message), Error);
}

TEST_CASE("describe shows the message kind and its fields") {
  const std::string text = describe(ControlMessage::builder().object("robot1").values({0.5}));
  CHECK_THAT(text, Catch::StartsWith("Control {") && Catch::Contains("robot1") && Catch::Contains("0.5"));
}

TEST_CASE("a zero time is left out of the frame, as Click leaves it out") {
  CHECK(encode(SensorMessage{}) == std::string("\x08\x03", 2));
  SensorMessage negative_zero;
  negative_zero.simulated_time = -0.0;
  CHECK(std::signbit(decode_as<SensorMessage>(encode(negative_zero)).simulated_time));
}

TEST_CASE("message_kind reads the kind of every message as decode does, without decoding it") {
  const Message messages[] = {HandshakeInitMessage{}, HandshakeMessage{}, ControlMessage{}, SensorMessage{},
                              SensorRequestMessage{},  ResetMessage{},     ErrorMessage{}};
  for (const Message& message : messages) CHECK(message_kind(encode(message)) == type_of(decode(encode(message))));
}

TEST_CASE("message_kind of a frame without a kind is a HandshakeInit, as decode reads it") {
  CHECK(message_kind("") == MessageType::HandshakeInit);
  CHECK(message_kind(std::string("\x10\x01", 2)) == MessageType::HandshakeInit);  // a version alone
}

TEST_CASE("message_kind takes the last kind of a frame that repeats it, as decode does") {
  CHECK(message_kind(std::string("\x08\x02\x08\x03", 4)) == MessageType::Sensor);
}

TEST_CASE("message_kind skips fields of a fixed width as decode does, and leaves one cut short to decode") {
  const std::string fixed64("\x91\x03" "\x01\x02\x03\x04\x05\x06\x07\x08", 10);  // unknown field 50
  const std::string fixed32("\x9d\x03" "\x01\x02\x03\x04", 6);                    // unknown field 51
  const std::string control = encode(ControlMessage{}) + fixed64 + fixed32;
  CHECK(message_kind(control) == MessageType::Control);
  CHECK(type_of(decode(control)) == MessageType::Control);
  CHECK_FALSE(message_kind(encode(ControlMessage{}) + fixed64.substr(0, 9)).has_value());
  CHECK_FALSE(message_kind(encode(ControlMessage{}) + fixed32.substr(0, 5)).has_value());
}

TEST_CASE("message_kind leaves a kind of a fixed width, a group and an invalid wire type to decode") {
  CHECK_FALSE(message_kind(std::string("\x09" "\x03\0\0\0\0\0\0\0", 9)).has_value());  // field 1 as a fixed64
  CHECK_FALSE(message_kind(std::string("\x0d" "\x03\0\0\0", 5)).has_value());            // field 1 as a fixed32
  CHECK_FALSE(message_kind(std::string("\x08\x03\x13\x14", 4)).has_value());             // a group, field 2
  CHECK_FALSE(message_kind(std::string("\x08\x03\x16", 3)).has_value());                  // wire type 6
}

TEST_CASE("message_kind leaves an unknown kind and a malformed frame to decode") {
  CHECK_FALSE(message_kind(std::string("\x08\x09", 2)).has_value());
  CHECK_FALSE(message_kind(std::string("\x08\x03\x12\x05" "ab", 6)).has_value());  // a field past the frame's end
}
