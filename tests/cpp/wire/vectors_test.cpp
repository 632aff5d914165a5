// The shared vectors (tests/vectors, made by make_vectors.py, content listed in
// tests/vectors/README.md): C++ decodes each,
// re-encodes it byte for byte, and encodes its own copy of each message into
// exactly the vector.

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

#include <coupler/wire/codec.hpp>

using namespace coupler;
using V = ValueType;

namespace {

std::string read_vector(const std::string& name) {
  std::ifstream file(std::string(COUPLER_VECTORS_DIR) + "/" + name + ".bin", std::ios::binary);
  REQUIRE(file.good());
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

const std::vector<std::string> kArmJoints = {"joint1", "joint2", "joint3", "joint4", "joint5", "joint6", "joint7"};
const std::vector<std::string> kRoverJoints = {"wheel_left", "wheel_right", "turret", "lift"};
const std::vector<double> kArmAngles = {0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785};

HandshakeMessage handshake() {
  HandshakeMessage m;
  m.time_step = 0.002;
  ObjectDescription& panda = m.objects["panda"];
  panda.controls = kArmJoints;
  panda.control_types = std::vector<V>(7, V::Angle);
  panda.joint_sensors = kArmJoints;
  panda.joint_sensor_types = {V::Angle, V::AngularVelocity1D, V::Torque1D, V::Force3D};
  panda.control_events = {{"gripper", V::Activated}};
  panda.sensors = {{"wrist_ft", {V::Force3D, V::Torque3D}},
                   {"imu", {V::Acceleration3D, V::AngularVelocity3D, V::AngularAcceleration3D}}};
  panda.object_sensors = {V::Position, V::RPY};
  panda.control_targets = kArmJoints;
  ObjectDescription& rover = m.objects["rover"];
  rover.controls = kRoverJoints;
  rover.control_types = {V::AngularVelocity1D, V::AngularVelocity1D, V::Torque1D, V::Force1D};
  rover.joint_sensors = kRoverJoints;
  rover.joint_sensor_types = {V::Angle, V::AngularVelocity1D, V::Torque1D};
  rover.sensors = {{"base", {V::Velocity3D}},
                   {"lift_load", {V::Force1D}},
                   {"bumper", {V::Activated}},
                   {"turret_drive", {V::Angle, V::AngularVelocity1D, V::Torque1D}}};
  rover.object_sensors = {V::Position, V::RPY};
  m.objects["box"].object_sensors = {V::Position, V::RPY};
  return m;
}

const std::vector<Range> kArmLimits = {{-2.9, 2.9, true},   {-1.75, 1.75, true},    {-2.9, 2.9, true},
                                       {-3.07, -0.07, true}, {-2.9, 2.9, true},      {-0.0175, 3.75, true},
                                       {-2.9, 2.9, true}};

HandshakeMessage handshake_coupler() {
  HandshakeMessage m = handshake();
  m.objects["panda"].control_ranges = kArmLimits;
  m.objects["panda"].joint_limits = kArmLimits;
  m.objects["rover"].control_ranges = {{-10.0, 10.0, true}, {-10.0, 10.0, true}, Range{}, {0.0, 100.0, true}};
  m.objects["rover"].joint_limits = {Range{}, Range{}, Range{}, {0.0, 0.3, true}};
  ObjectDescription& cart = m.objects["cart"];
  cart.controls = {"rail_servo", "tendon_drive"};
  cart.control_types = {V::LinearPosition, V::ActuatorInput};
  cart.joint_sensors = {"rail"};
  cart.joint_sensor_types = {V::Angle, V::AngularVelocity1D, V::Torque1D};
  cart.sensors = {{"rail_state", {V::LinearPosition, V::LinearVelocity}}, {"range", {V::Number}}};
  cart.control_targets = {"rail", "tendon"};
  cart.control_ranges = {{-1.0, 1.0, true}, {0.0, 1.0, true}};
  cart.joint_limits = {{-1.0, 1.0, true}};
  cart.sensor_units = {{"range", "m"}};
  cart.joint_types = {V::LinearPosition, V::LinearVelocity, V::Force1D};
  cart.control_meanings = {"", "force = 10 * ctrl"};
  m.server = ServerInfo{"coupler", "0.1.0", {"steps", "goodbye", "ranges", "value-types"}};
  return m;
}

SensorMessage sensor() {
  SensorMessage m;
  m.simulated_time = 1.25;
  ObjectSensors& panda = m.objects["panda"];
  panda.angles = kArmAngles;
  panda.angular_velocities = {0.01, -0.02, 0.0, 0.03, 0.0, -0.01, 0.0};
  panda.torques = {0.5, -12.25, 0.75, 8.5, 0.125, 1.5, 0.0625};
  panda.forces = std::vector<std::vector<double>>(7, {0.0, 0.0, 9.81});
  panda.object_sensors = {{V::Position, {-0.45, 0.0, 0.75}}, {V::RPY, {0.0, 0.0, 0.0}}};
  panda.sensors = {
      {"wrist_ft", {{V::Force3D, {0.1, -0.2, -14.7}}, {V::Torque3D, {0.01, 0.02, -0.003}}}},
      {"imu",
       {{V::Acceleration3D, {0.0, 0.0, 9.81}}, {V::AngularVelocity3D, {0.0, 0.5, 0.0}},
        {V::AngularAcceleration3D, {0.0, 2.5, 0.0}}}},
  };
  ObjectSensors& rover = m.objects["rover"];
  rover.angles = {12.5, 12.25, 0.5, 0.125};
  rover.angular_velocities = {1.5, -1.5, 0.0, 0.0};
  rover.torques = {2.0, 2.25, 0.25, 40.0};
  rover.object_sensors = {{V::Position, {1.0, 2.0, 0.1}}, {V::RPY, {0.0, 0.0, 1.25}}};
  rover.sensors = {{"base", {{V::Velocity3D, {0.5, 0.0, 0.0}}}},
                   {"lift_load", {{V::Force1D, {39.5}}}},
                   {"bumper", {{V::Activated, {1.0}}}},
                   // A zero in a oneof is still sent: the angular velocity 0.0 checks that.
                   {"turret_drive", {{V::Angle, {0.5}}, {V::AngularVelocity1D, {0.0}}, {V::Torque1D, {0.25}}}}};
  m.objects["box"].object_sensors = {{V::Position, {0.05, 0.1, 0.775}}, {V::RPY, {0.0, 0.0, 0.5}}};
  return m;
}

SensorMessage sensor_coupler() {
  SensorMessage m = sensor();
  ObjectSensors& cart = m.objects["cart"];
  cart.angles = {0.25};
  cart.angular_velocities = {-0.5};
  cart.torques = {1.5};
  cart.sensors = {{"rail_state", {{V::LinearPosition, {0.25}}, {V::LinearVelocity, {-0.5}}}},
                  {"range", {{V::Number, {-1.0}}}}};
  return m;
}

HandshakeMessage handshake_worlds() {
  ObjectDescription arm;
  arm.controls = {"shoulder"};
  arm.control_types = {V::Angle};
  arm.joint_sensors = {"shoulder"};
  arm.joint_sensor_types = {V::Angle, V::AngularVelocity1D};
  arm.control_events = {{"gripper", V::Activated}};
  HandshakeMessage m;
  m.objects = {{"arm", arm}};
  m.time_step = 0.002;
  m.server = ServerInfo{"coupler", "0.1.0", {"steps", "worlds"}};
  m.worlds = 2;
  return m;
}

ControlMessage control_worlds() {
  ControlMessage m;
  m.steps = 5;
  m.worlds = 2;
  m.world_controls = {0.5, 1.0, -0.25, 0.0};
  m.reset_worlds = {1};
  m.reset_qpos = {0.125};
  m.reset_qvel = {-1.5};
  return m;
}

SensorMessage sensor_worlds() {
  SensorMessage m;
  m.simulated_time = 0.01;
  m.world_sensors = {0.5, 2.5, 0.125, -1.5};
  m.world_times = {0.01, 0.0};
  return m;
}

HandshakeMessage handshake_mocap_keyframes() {
  HandshakeMessage m;
  ObjectDescription& target = m.objects["target"];
  target.controls = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  target.control_types = {V::MocapPosition,   V::MocapPosition,   V::MocapPosition,  V::MocapQuaternion,
                          V::MocapQuaternion, V::MocapQuaternion, V::MocapQuaternion};
  target.object_sensors = {V::Position, V::RPY};
  target.control_targets = std::vector<std::string>(7, "target");
  target.control_ranges = {Range{}, Range{}, Range{}, {-1.0, 1.0, true}, {-1.0, 1.0, true}, {-1.0, 1.0, true},
                           {-1.0, 1.0, true}};
  m.time_step = 0.002;
  m.keyframes = {"home", ""};
  m.server = ServerInfo{"coupler", "0.1.0", {kExtensionKeyframes, kExtensionMocap}};
  return m;
}

ResetMessage reset_keyframe(const std::string& name, std::optional<std::uint32_t> index) {
  ResetMessage m;
  m.keyframe = name;
  m.keyframe_index = index;
  return m;
}

HandshakeMessage handshake_cameras() {
  HandshakeMessage m;
  m.time_step = 0.002;
  ObjectDescription& pendulum = m.objects["pendulum"];
  pendulum.controls = {"hinge"};
  pendulum.control_types = {V::Torque1D};
  pendulum.joint_sensors = {"hinge"};
  pendulum.joint_sensor_types = {V::Angle, V::AngularVelocity1D, V::Torque1D};
  m.cameras = {{"overview", 4, 2, {"rgb", "depth", "segmentation"}, 1.25, 1.25, 1.5, 0.5, 0.01, 50.0, "world",
                {0.0, -1.0, 1.5}, {0.875, 0.5, 0.0, 0.0}}};
  m.max_image_width = 4096;
  m.max_image_height = 4096;
  m.server = ServerInfo{"coupler", "0.1.0", {"images"}};
  return m;
}

ControlMessage control_images() {
  ControlMessage m = ControlMessage::builder().object("pendulum").values({0.5}).build();
  m.images = {{"overview", {"rgb", "depth"}}, {"wrist", {"depth"}, 10u}};
  return m;
}

SensorMessage sensor_images() {
  SensorMessage m;
  m.objects["pendulum"].angles = {0.25};
  m.objects["pendulum"].angular_velocities = {0.0};
  m.objects["pendulum"].torques = {0.5};
  m.simulated_time = 0.5;
  // 1.5 and 2.25 as little-endian float32, then two rgb pixels.
  m.images = {{"overview", "depth", 2, 1, 0.5, std::string("\x00\x00\xc0\x3f\x00\x00\x10\x40", 8)},
              {"overview", "rgb", 2, 1, 0.5, std::string("\xff\x00\x00\x00\x80\xff", 6)}};
  return m;
}

HandshakeMessage handshake_shm() {
  HandshakeMessage m = handshake_cameras();
  m.server = ServerInfo{"coupler", "0.1.0", {"images", "shm"}};
  m.shared_memory = SharedMemoryRing{"/proc/4242/fd/7", 4, 1 << 20, 4096, 16384};
  return m;
}

SensorMessage sensor_images_shm() {
  SensorMessage m;
  m.objects["pendulum"].angles = {0.25};
  m.objects["pendulum"].angular_velocities = {0.0};
  m.objects["pendulum"].torques = {0.5};
  m.simulated_time = 0.5;
  m.images = {{"overview", "rgb", 4, 2, 0.5, "", SharedSlice{2, 7, 64, 24}}};
  return m;
}

ControlMessage control_worlds_images() {
  ControlMessage m;
  m.worlds = 2;
  m.world_controls = {0.5, 1.0, -0.25, 0.0};
  m.images = {{"overview", {"rgb"}, std::nullopt}};
  m.image_worlds = {1};
  return m;
}

SensorMessage sensor_worlds_images() {
  SensorMessage m;
  m.simulated_time = 0.01;
  m.world_sensors = {0.5, 2.5, 0.125, -1.5};
  m.world_times = {0.01, 0.01};
  m.world_images = {{"overview", "rgb", 2, 1, 0.0, std::string("\xff\x00\x00\x00\x80\xff", 6)}};
  m.image_worlds = {1};
  return m;
}

ControlMessage control_worlds_shm() {
  ControlMessage m = control_worlds_images();
  m.shared_memory = true;
  return m;
}

SensorMessage sensor_worlds_shm() {
  SensorMessage m;
  m.simulated_time = 0.01;
  m.world_times = {0.01, 0.01};
  m.world_images = {{"overview", "rgb", 2, 1, 0.0, "", SharedSlice{1, 9, 128, 6}}};
  m.image_worlds = {1};
  m.world_sensors_shared = SharedSlice{1, 9, 0, 32};
  m.world_data_shared = SharedSlice{1, 9, 64, 16};
  return m;
}

std::map<std::string, Message> vectors() {
  return {
      {"handshake_init", HandshakeInitMessage{}},
      {"handshake", handshake()},
      {"handshake_coupler", handshake_coupler()},
      {"control", ControlMessage::builder()
                      .object("panda")
                      .values(kArmAngles)
                      .event("gripper", true)
                      .object("rover")
                      .values({1.5, -1.5, 0.25, 40.0})
                      .build()},
      {"control_angles",
       ControlMessage::builder().object("panda").values(kArmAngles, ControlField::Angles).steps(10).build()},
      {"sensor", sensor()},
      {"sensor_coupler", sensor_coupler()},
      {"sensor_request", SensorRequestMessage{}},
      {"reset", ResetMessage{}},
      {"reset_state", ResetMessage{{0.25, -0.5, 1.0}, {0.0, 2.0, -0.125}}},
      {"handshake_worlds", handshake_worlds()},
      {"control_worlds", control_worlds()},
      {"sensor_worlds", sensor_worlds()},
      {"handshake_mocap_keyframes", handshake_mocap_keyframes()},
      {"reset_keyframe", reset_keyframe("home", std::nullopt)},
      {"reset_keyframe_index", reset_keyframe("", 0)},
      {"handshake_cameras", handshake_cameras()},
      {"control_images", control_images()},
      {"sensor_request_images", SensorRequestMessage{{{"overview", {"segmentation"}, 3u}}}},
      {"sensor_images", sensor_images()},
      {"handshake_shm", handshake_shm()},
      {"sensor_request_shm", SensorRequestMessage{{{"overview", {"rgb"}}}, true}},
      {"sensor_images_shm", sensor_images_shm()},
      {"control_worlds_images", control_worlds_images()},
      {"sensor_worlds_images", sensor_worlds_images()},
      {"control_worlds_shm", control_worlds_shm()},
      {"sensor_worlds_shm", sensor_worlds_shm()},
      {"error", ErrorMessage{static_cast<int>(ErrorCode::ControlMismatch), "unknown object 'robot9'"}},
  };
}

}  // namespace

TEST_CASE("each vector re-encodes byte for byte") {
  for (const auto& [name, message] : vectors()) {
    INFO(name);
    const std::string frame = read_vector(name);
    CHECK(encode(decode(frame)) == frame);
  }
}

TEST_CASE("the encoder reproduces each vector") {
  for (const auto& [name, message] : vectors()) {
    INFO(name);
    CHECK(encode(message) == read_vector(name));
  }
}

TEST_CASE("each vector decodes to the message kind it holds") {
  for (const auto& [name, message] : vectors()) {
    INFO(name);
    CHECK(type_of(decode(read_vector(name))) == type_of(message));
  }
}

TEST_CASE("the sensor vector reads back by object and name") {
  const auto m = decode_as<SensorMessage>(read_vector("sensor"));
  CHECK(m.simulated_time == 1.25);
  CHECK(m.object("panda").sensor("wrist_ft")[0].value == std::vector<double>{0.1, -0.2, -14.7});
  CHECK(m.object("rover").sensor("bumper")[0].type == V::Activated);
  CHECK(m.object("box").object_sensors[1].value[2] == 0.5);
}

TEST_CASE("the keyframe vectors name the keyframe, and index 0 is sent") {
  CHECK(decode_as<HandshakeMessage>(read_vector("handshake_mocap_keyframes")).keyframes ==
        std::vector<std::string>{"home", ""});
  CHECK(decode_as<ResetMessage>(read_vector("reset_keyframe")).keyframe == "home");
  CHECK(decode_as<ResetMessage>(read_vector("reset_keyframe_index")).keyframe_index == std::optional<std::uint32_t>(0));
  CHECK_FALSE(decode_as<ResetMessage>(read_vector("reset_keyframe")).keyframe_index);
}

TEST_CASE("the coupler handshake vector carries the server, its extensions and the ranges") {
  const auto m = decode_as<HandshakeMessage>(read_vector("handshake_coupler"));
  REQUIRE(m.server);
  CHECK(m.server->name == "coupler");
  CHECK(m.supports(kExtensionGoodbye));
  CHECK(m.object("panda").control_ranges[3].max == -0.07);
  CHECK_FALSE(m.object("rover").control_ranges[2].limited);
  CHECK(m.object("rover").joint_limits[3].max == 0.3);
}

TEST_CASE("the coupler vectors carry the value types from 100 and the units of Number readings") {
  const auto handshake = decode_as<HandshakeMessage>(read_vector("handshake_coupler"));
  CHECK(handshake.supports(kExtensionValueTypes));
  const ObjectDescription& cart = handshake.object("cart");
  CHECK(cart.control_types == std::vector<V>{V::LinearPosition, V::ActuatorInput});
  CHECK(cart.sensor_units.at("range") == "m");
  CHECK(cart.types_of_joint(0) == std::vector<V>{V::LinearPosition, V::LinearVelocity, V::Force1D});
  CHECK(cart.control_meanings.at(1) == "force = 10 * ctrl");
  const auto sensors = decode_as<SensorMessage>(read_vector("sensor_coupler"));
  const auto& readings = sensors.objects.at("cart").sensors.at("rail_state");
  CHECK(readings[0].type == V::LinearPosition);
  CHECK(readings[1].value == std::vector<double>{-0.5});
}

TEST_CASE("a handshake without ServerInfo announces no extension") {
  const auto m = decode_as<HandshakeMessage>(read_vector("handshake"));
  CHECK_FALSE(m.server);
  CHECK_FALSE(m.supports(kExtensionSteps));
  CHECK(m.object("panda").control_ranges.empty());
}
