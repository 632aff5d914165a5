// SensorReadings: a SensorMessage, or a SensorLayout's flat array, read through the handshake by object and name.

#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <coupler/controller/sensor_readings.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/sensor_layout.hpp>

using namespace coupler;
using V = ValueType;

namespace {

const std::vector<V> kClickJointTypes = {V::Angle, V::AngularVelocity1D, V::Torque1D};

// A cart on a slide joint with a hinged pole, as a coupler server describes it.
HandshakeMessage cart_handshake() {
  HandshakeMessage handshake;
  ObjectDescription& cart = handshake.objects["cart"];
  cart.joint_sensors = {"rail", "pole"};
  cart.joint_sensor_types = kClickJointTypes;
  cart.joint_types = {V::LinearPosition, V::LinearVelocity, V::Force1D, V::Angle, V::AngularVelocity1D, V::Torque1D};
  return handshake;
}

SensorMessage cart_readings() {
  SensorMessage message;
  ObjectSensors& cart = message.objects["cart"];
  cart.angles = {0.25, 0.5};
  cart.angular_velocities = {0.0, 0.0};
  cart.torques = {0.0, 0.0};
  return message;
}

// A cart with a position and an IMU (acceleration, then angular velocity), and a pole with a named switch.
HandshakeMessage sensed_handshake() {
  HandshakeMessage handshake = cart_handshake();
  ObjectDescription& cart = handshake.objects["cart"];
  cart.object_sensors = {V::Position};
  cart.sensors = {{"imu", {V::Acceleration3D, V::AngularVelocity3D}}, {"switch", {V::Activated}}};
  return handshake;
}

// The same readings as a message and as the layout's flat array.
SensorMessage sensed_message() {
  SensorMessage message = cart_readings();
  message.simulated_time = 0.5;
  ObjectSensors& cart = message.objects["cart"];
  cart.object_sensors = {{V::Position, {1.0, 2.0, 3.0}}};
  cart.sensors["imu"] = {{V::Acceleration3D, {0.0, 0.0, -9.81}}, {V::AngularVelocity3D, {0.1, 0.2, 0.3}}};
  cart.sensors["switch"] = {{V::Activated, {1.0}}};
  return message;
}

SensorReadings from_array(const HandshakeMessage& handshake, const SensorMessage& message) {
  auto layout = std::make_shared<SensorLayout>(handshake);
  std::vector<double> values(layout->size());
  const auto time = layout->read(encode(Message(message)), values.data());
  REQUIRE(time);
  return SensorReadings(handshake, layout, std::move(values), *time);
}

}  // namespace

TEST_CASE("a slide joint's readings are typed linear by the coupler handshake", "[sensor_readings]") {
  const HandshakeMessage handshake = cart_handshake();
  const SensorReadings readings(handshake, cart_readings());
  CHECK(readings.joint_types("cart", "rail") == std::vector<V>{V::LinearPosition, V::LinearVelocity, V::Force1D});
  CHECK(readings.joint_types("cart", "pole") == kClickJointTypes);
  CHECK(readings.angle("cart", "rail") == 0.25);  // metres, in Click's angle vector
}

TEST_CASE("without joint types every joint's readings have the object's Click types", "[sensor_readings]") {
  HandshakeMessage handshake = cart_handshake();
  handshake.objects["cart"].joint_types.clear();
  const SensorReadings readings(handshake, cart_readings());
  CHECK(readings.joint_types("cart", "rail") == kClickJointTypes);
}

TEST_CASE("a joint, object or sensor that does not exist is refused listing the valid names", "[sensor_readings]") {
  const HandshakeMessage handshake = cart_handshake();
  const SensorReadings readings(handshake, cart_readings());
  CHECK_THROWS_WITH(readings.angle("cart", "poel"),
                    "object 'cart' has no joint sensor named 'poel'; valid names: 'rail', 'pole'");
  CHECK_THROWS_WITH(readings.angles("kart"),
                    "no object named 'kart' in the sensor message; valid names: 'cart'");
  CHECK_THROWS_WITH(readings.sensor("cart", "imu"), "object 'cart' has no sensor named 'imu'; there are no valid names");
}

TEST_CASE("readings of a flat array are looked up as the same readings of a message", "[sensor_readings]") {
  const HandshakeMessage handshake = sensed_handshake();
  const SensorReadings message(handshake, sensed_message());
  const SensorReadings flat = from_array(handshake, sensed_message());
  CHECK(flat.time() == message.time());
  CHECK(flat.angles("cart") == message.angles("cart"));
  CHECK(flat.torque("cart", "pole") == message.torque("cart", "pole"));
  CHECK(flat.object_sensor("cart", V::Position) == message.object_sensor("cart", V::Position));
  CHECK(flat.sensor("cart", "imu", V::AngularVelocity3D) == std::vector<double>{0.1, 0.2, 0.3});
  CHECK(flat.sensor("cart", "imu", V::AngularVelocity3D) == message.sensor("cart", "imu", V::AngularVelocity3D));
  const std::vector<Sensor> flat_switch = flat.sensor("cart", "switch");
  const std::vector<Sensor> message_switch = message.sensor("cart", "switch");
  REQUIRE(flat_switch.size() == 1);
  CHECK(flat_switch[0].type == message_switch[0].type);
  CHECK(flat_switch[0].value == message_switch[0].value);
}

TEST_CASE("readings of a flat array refuse what readings of a message refuse, in the same words", "[sensor_readings]") {
  const HandshakeMessage handshake = sensed_handshake();
  const SensorReadings message(handshake, sensed_message());
  const SensorReadings flat = from_array(handshake, sensed_message());
  const auto refusal = [](auto lookup) {
    try {
      lookup();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("nothing refused");
  };
  for (const auto& lookup : std::vector<std::function<void(const SensorReadings&)>>{
           [](const SensorReadings& r) { r.angles("kart"); },
           [](const SensorReadings& r) { r.angle("cart", "poel"); },
           [](const SensorReadings& r) { r.sensor("cart", "gps"); },
           [](const SensorReadings& r) { r.sensor("cart", "imu", V::Force3D); },
           [](const SensorReadings& r) { r.object_sensor("cart", V::RPY); },
       }) {
    const std::string expected = refusal([&] { lookup(message); });
    CHECK(expected != "nothing refused");
    CHECK(refusal([&] { lookup(flat); }) == expected);
  }
}

TEST_CASE("a reading's missing type is named as Python names it", "[sensor_readings]") {
  const HandshakeMessage handshake = sensed_handshake();
  const SensorReadings flat = from_array(handshake, sensed_message());
  CHECK_THROWS_WITH(flat.sensor("cart", "imu", V::AngularVelocity1D),
                    "sensor 'imu' of 'cart' has no ANGULAR_VELOCITY_1D reading");
}
