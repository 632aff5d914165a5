// ControlMessage::builder: how a controller writes a Control in one expression.

#include <catch2/catch.hpp>

#include <coupler/wire/messages.hpp>

using namespace coupler;

TEST_CASE("the builder fills values and events per object") {
  const ControlMessage control = ControlMessage::builder()
                                     .object("robot1")
                                     .values({0.1, 0.2})
                                     .event("gripper", true)
                                     .object("robot2")
                                     .values({-1.0}, ControlField::Torques);
  REQUIRE(control.objects.size() == 2);
  CHECK(control.objects.at("robot1").values == std::vector<double>{0.1, 0.2});
  CHECK(control.objects.at("robot1").events.at("gripper"));
  CHECK(control.objects.at("robot2").field == ControlField::Torques);
}

TEST_CASE("the builder refuses values before an object is named") {
  CHECK_THROWS_WITH(ControlMessage::builder().values({1.0}), Catch::Contains("call object(name) before"));
}

TEST_CASE("looking up a missing object or sensor names it") {
  const SensorMessage sensors;
  CHECK_THROWS_WITH(sensors.object("robot9"), Catch::Contains("'robot9'"));
  const ObjectSensors object;
  CHECK_THROWS_WITH(object.sensor("imu"), Catch::Contains("'imu'"));
}
