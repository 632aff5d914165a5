// SensorReadings: a SensorMessage read through the handshake, by object and name.

#include <catch2/catch.hpp>

#include <vector>

#include <coupler/controller/sensor_readings.hpp>
#include <coupler/wire/error.hpp>

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
                    "no object in the sensor message named 'kart'; valid names: 'cart'");
  CHECK_THROWS_WITH(readings.sensor("cart", "imu"), "no sensor named 'imu'; there are no valid names");
}
