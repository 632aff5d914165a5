// Controls: a scene's Control held as its layout's flat arrays, addressed by name.

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include <coupler/controller/controls.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

#include "vector_files.hpp"

using namespace coupler;

namespace {

// Two controllable objects and one that is not; the layout puts "arm" before "cart".
HandshakeMessage two_robots() {
  HandshakeMessage handshake;
  handshake.time_step = 0.002;
  ObjectDescription& arm = handshake.objects["arm"];
  arm.controls = {"shoulder", "elbow"};
  arm.control_types = {ValueType::Angle, ValueType::Angle};
  arm.control_events = {{"gripper", ValueType::Activated}, {"vacuum", ValueType::Activated}};
  ObjectDescription& cart = handshake.objects["cart"];
  cart.controls = {"wheel", "lift", "tilt"};
  cart.control_types = {ValueType::AngularVelocity1D, ValueType::LinearPosition, ValueType::Angle};
  handshake.objects["box"].object_sensors = {ValueType::Position};
  return handshake;
}

}  // namespace

TEST_CASE("an object's values are its stretch of one array in the layout's order") {
  Controls controls(two_robots());
  controls.values("cart")[1] = 0.5;
  controls.set("arm", "elbow", -0.25);
  CHECK(controls.all_values() == std::vector<double>{0.0, -0.25, 0.0, 0.5, 0.0});
}

TEST_CASE("an object's values iterate in the handshake's control order") {
  Controls controls(two_robots());
  controls.set("cart", "wheel", 1.0);
  controls.set("cart", "tilt", 3.0);
  std::vector<double> seen;
  for (const double value : controls.values("cart")) seen.push_back(value);
  CHECK(seen == std::vector<double>{1.0, 0.0, 3.0});
}

TEST_CASE("assigning an object a list of its length sets all its values") {
  Controls controls(two_robots());
  controls.values("cart") = {1.0, 2.0, 3.0};
  controls.values("arm") = std::vector<double>{4.0, 5.0};
  CHECK(controls.get("cart", "lift") == 2.0);
  CHECK(controls.get("arm", "elbow") == 5.0);
}

TEST_CASE("assigning an object a list of another length is refused naming the object and both counts") {
  Controls controls(two_robots());
  const std::vector<double> two{1.0, 2.0};
  CHECK_THROWS_WITH(controls.values("cart") = two, "object 'cart' has 3 controls, got 2 values");
  CHECK(controls.values("cart") == std::vector<double>{0.0, 0.0, 0.0});
}

TEST_CASE("events are read back as they were set") {
  Controls controls(two_robots());
  controls.event("arm", "vacuum", true);
  CHECK(controls.event("arm", "vacuum"));
  CHECK_FALSE(controls.event("arm", "gripper"));
  CHECK(controls.events_on() == std::vector<std::uint8_t>{0, 1});
}

TEST_CASE("only objects with controls or events are controllable") {
  Controls controls(two_robots());
  CHECK(controls.objects() == std::vector<std::string>{"arm", "cart"});
  CHECK_THROWS_WITH(controls.values("box"), "no controllable object named 'box'; valid names: 'arm', 'cart'");
}

TEST_CASE("a controls' frame is the codec's frame of its message") {
  Controls controls(two_robots());
  controls.values("cart") = {-0.0, 2.5, 1e300};
  controls.event("arm", "gripper", true);
  controls.steps(7);
  CHECK(controls.frame() == encode(Message(controls.message())));
}

TEST_CASE("controls filled as the shared control vector send its frame") {
  const HandshakeMessage handshake = decode_as<HandshakeMessage>(read_vector_file("handshake"));
  const ControlMessage sent = decode_as<ControlMessage>(read_vector_file("control"));
  Controls controls(handshake);
  for (const auto& [name, control] : sent.objects) {
    controls.values(name) = control.values;
    for (const auto& [event, on] : control.events) controls.event(name, event, on);
  }
  CHECK(controls.frame() == read_vector_file("control"));
}

TEST_CASE("a moved controls keeps the views of its values") {
  Controls controls(two_robots());
  const Values arm = controls.values("arm");
  Controls moved = std::move(controls);
  arm[0] = 0.125;
  CHECK(moved.get("arm", "shoulder") == 0.125);
}
