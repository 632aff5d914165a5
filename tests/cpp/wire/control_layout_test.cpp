// ControlLayout: Controls read into flat arrays, and the checks against the
// handshake, with the texts the Python server sends; Controls encoded from
// flat arrays, byte for byte as the codec encodes them.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/controller/controls.hpp>

#include "vector_files.hpp"

using namespace coupler;
using V = ValueType;

namespace {

HandshakeMessage scene() {
  HandshakeMessage h;
  ObjectDescription& arm = h.objects["arm"];
  arm.controls = {"shoulder", "elbow"};
  arm.control_types = {V::Angle, V::Angle};
  arm.control_events = {{"vacuum", V::Activated}, {"gripper", V::Activated}};
  ObjectDescription& cart = h.objects["cart"];
  cart.controls = {"wheel", "lift"};
  cart.control_types = {V::AngularVelocity1D, V::Force1D};
  h.objects["box"];
  return h;
}

// Arrays for scene(), filled with markers so that every write shows.
struct Arrays {
  std::vector<double> values = std::vector<double>(4, -7.0);
  std::vector<std::uint8_t> values_set = std::vector<std::uint8_t>(3, 9);
  std::vector<std::uint8_t> events_set = std::vector<std::uint8_t>(2, 9);
  std::vector<std::uint8_t> events_on = std::vector<std::uint8_t>(2, 9);

  ControlTargets targets() { return {values.data(), values_set.data(), events_set.data(), events_on.data()}; }
  bool untouched() const {
    return values == std::vector<double>(4, -7.0) && values_set == std::vector<std::uint8_t>(3, 9) &&
           events_set == std::vector<std::uint8_t>(2, 9) && events_on == std::vector<std::uint8_t>(2, 9);
  }
};

// The refusal's text; checks it is a ControlMismatch that wrote nothing.
std::string refusal(const ControlMessage& control) {
  const ControlLayout layout(scene());
  Arrays arrays;
  try {
    layout.read(control, arrays.targets());
  } catch (const ProtocolError& e) {
    CHECK(e.code() == ErrorCode::ControlMismatch);
    CHECK(arrays.untouched());
    return e.text();
  }
  FAIL("the control was accepted");
  return {};
}

constexpr const char* kPrefix = "control does not match the handshake: ";

}  // namespace

TEST_CASE("objects come in name order and events in name order within each object") {
  const ControlLayout layout(scene());
  REQUIRE(layout.objects().size() == 3);
  CHECK(layout.objects()[0].name == "arm");
  CHECK(layout.objects()[0].offset == 0);
  CHECK(layout.objects()[0].events == std::vector<std::string>{"gripper", "vacuum"});
  CHECK(layout.objects()[1].name == "box");
  CHECK(layout.objects()[1].size == 0);
  CHECK(layout.objects()[1].event_offset == 2);
  CHECK(layout.objects()[2].name == "cart");
  CHECK(layout.objects()[2].offset == 2);
  CHECK(layout.size() == 4);
  CHECK(layout.event_count() == 2);
}

TEST_CASE("a Control writes the objects it carries and marks which objects and events it set") {
  const ControlLayout layout(scene());
  Arrays arrays;
  const ControlMessage control =
      ControlMessage::builder().object("cart").values({1.5, 40.0}).object("arm").values({0.1, 0.2}).event("vacuum", true).steps(3);
  CHECK(layout.read(control, arrays.targets()) == 3);
  CHECK(arrays.values == std::vector<double>{0.1, 0.2, 1.5, 40.0});
  CHECK(arrays.values_set == std::vector<std::uint8_t>{1, 0, 1});
  CHECK(arrays.events_set == std::vector<std::uint8_t>{0, 1});
  CHECK(arrays.events_on[1] == 1);

  // Objects left out keep their values; events left out are marked unset.
  CHECK(layout.read(ControlMessage::builder().object("arm").values({0.3, 0.4}).event("gripper", false), arrays.targets()) == 0);
  CHECK(arrays.values == std::vector<double>{0.3, 0.4, 1.5, 40.0});
  CHECK(arrays.values_set == std::vector<std::uint8_t>{1, 0, 0});
  CHECK(arrays.events_set == std::vector<std::uint8_t>{1, 0});
  CHECK(arrays.events_on[0] == 0);
}

TEST_CASE("a deprecated value list whose type fits every control is read like values") {
  const ControlLayout layout(scene());
  Arrays arrays;
  layout.read(ControlMessage::builder().object("arm").values({0.5, 0.6}, ControlField::Angles), arrays.targets());
  CHECK(arrays.values[1] == 0.6);
}

TEST_CASE("the shared control vectors decode into the arrays of the shared handshake") {
  const ControlLayout layout(decode_as<HandshakeMessage>(read_vector_file("handshake")));
  std::vector<double> values(layout.size());
  std::vector<std::uint8_t> values_set(layout.objects().size()), events_set(layout.event_count()),
      events_on(layout.event_count());
  const ControlTargets targets{values.data(), values_set.data(), events_set.data(), events_on.data()};

  CHECK(layout.decode(read_vector_file("control_angles"), targets) == 10);
  CHECK(values[3] == -2.356);

  CHECK(layout.decode(read_vector_file("control"), targets) == 0);
  // Objects box, panda, rover: panda's values first, then rover's.
  CHECK(values_set == std::vector<std::uint8_t>{0, 1, 1});
  CHECK(values[7 + 3] == 40.0);
  CHECK(events_set == std::vector<std::uint8_t>{1});
  CHECK(events_on == std::vector<std::uint8_t>{1});
}

TEST_CASE("each mismatch is refused with the Python server's text") {
  using B = ControlMessage;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<ControlMessage, std::string>> cases = {
      {B::builder().object("robot9").values({1.0}), "unknown object 'robot9' (the scene has 'arm', 'box', 'cart')"},
      {B::builder().object("arm").values({1.0}), "object 'arm' has 2 controls, got 1 values"},
      {B::builder().object("arm").event("gripper", true), "object 'arm' has 2 controls, got 0 values"},
      {B::builder().object("cart").values({1.0, 2.0}, ControlField::Angles),
       "'angles' sent for object 'cart', but control 'wheel' is ANGULAR_VELOCITY_1D"},
      {B::builder().object("arm").values({1.0, 2.0}, ControlField::Torques),
       "'torques' sent for object 'arm', but control 'shoulder' is ANGLE"},
      {B::builder().object("arm").values({0.0, nan}), "control 'elbow' of object 'arm' is nan"},
      {B::builder().object("arm").values({inf, 0.0}), "control 'shoulder' of object 'arm' is inf"},
      {B::builder().object("cart").values({0.0, -inf}), "control 'lift' of object 'cart' is -inf"},
      {B::builder().object("arm").values({0.0, 0.0}).event("laser", true), "unknown control event 'laser' of object 'arm'"},
      {B::builder().steps(ControlLayout::kMaxSteps + 1), "steps 100001 exceeds the maximum of 100000"},
      {B::builder().steps((std::uint64_t{1} << 32) + 5), "steps 4294967301 exceeds the maximum of 100000"},
      // The first problem in name order is the one named.
      {B::builder().object("zeta").values({}).object("cart").values({1.0}),
       "object 'cart' has 2 controls, got 1 values"},
  };
  for (const auto& [control, text] : cases) {
    INFO(text);
    CHECK(refusal(control) == kPrefix + text);
  }
}

TEST_CASE("a refusal quotes a name holding a NUL byte whole, escaped") {
  const std::string name("robot\0nine", 10);
  CHECK(refusal(ControlMessage::builder().object(name).values({1.0})) ==
        std::string(kPrefix) + "unknown object 'robot\\x00nine' (the scene has 'arm', 'box', 'cart')");
}

TEST_CASE("a refusal shows a name with a newline on one line, so it cannot forge a log line") {
  CHECK(refusal(ControlMessage::builder().object("arm\nERROR forged").values({1.0})) ==
        std::string(kPrefix) + "unknown object 'arm\\nERROR forged' (the scene has 'arm', 'box', 'cart')");
}

TEST_CASE("a refusal cuts a megabyte name to 200 characters and names its length") {
  const std::string name(1'000'000, 'x');
  CHECK(refusal(ControlMessage::builder().object(name).values({1.0})) ==
        std::string(kPrefix) + "unknown object '" + std::string(200, 'x') +
            "\u2026 (1000000 characters)' (the scene has 'arm', 'box', 'cart')");
}

TEST_CASE("a scene without objects says so when refusing an object") {
  const ControlLayout layout(HandshakeMessage{});
  ControlTargets none{};
  CHECK_THROWS_WITH(layout.read(ControlMessage::builder().object("arm").values({}), none),
                    std::string(kPrefix) + "unknown object 'arm' (the scene has no objects)");
}

TEST_CASE("decode() refuses a frame that holds no Control") {
  const ControlLayout layout(scene());
  Arrays arrays;
  try {
    layout.decode(encode(ResetMessage{}), arrays.targets());
    FAIL("a Reset was read as a Control");
  } catch (const ProtocolError& e) {
    CHECK(e.code() == ErrorCode::UnexpectedMessage);
  }
  CHECK(arrays.untouched());
}

TEST_CASE("encode writes the frame of a Controls holding the same values, events and steps") {
  ControlLayout layout(scene());
  Controls controls(scene());
  std::mt19937 generator(7);
  std::uniform_real_distribution<double> number(-10.0, 10.0);
  for (int round = 0; round < 20; ++round) {
    INFO("round " << round);
    // Layout order: arm's shoulder and elbow, then cart's wheel and lift; arm's events gripper, vacuum.
    std::vector<double> values(layout.size());
    for (double& v : values) v = number(generator);
    // Any byte but 0 is on.
    const std::vector<std::uint8_t> events_on = {std::uint8_t(round % 2), std::uint8_t(round % 3 == 0 ? 5 : 0)};
    const auto steps = static_cast<std::uint32_t>(round % 4);
    controls.values("arm") = {values[0], values[1]};
    controls.values("cart") = {values[2], values[3]};
    controls.event("arm", "gripper", events_on[0] != 0);
    controls.event("arm", "vacuum", events_on[1] != 0);
    controls.steps(steps);
    CHECK(layout.encode(values.data(), events_on.data(), steps) == encode(controls.message()));
  }
}

TEST_CASE("encode writes negative zeros and non-finite values as the codec does") {
  ControlLayout layout(scene());
  Controls controls(scene());
  const std::vector<double> values = {-0.0, std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::infinity(), 0.0};
  const std::vector<std::uint8_t> events_on = {0, 0};
  controls.values("arm") = {values[0], values[1]};
  controls.values("cart") = {values[2], values[3]};
  CHECK(layout.encode(values.data(), events_on.data(), 0) == encode(controls.message()));
}

TEST_CASE("the shared control vector is what encode writes from the arrays it decodes into") {
  ControlLayout layout(decode_as<HandshakeMessage>(read_vector_file("handshake")));
  std::vector<double> values(layout.size());
  std::vector<std::uint8_t> values_set(layout.objects().size()), events_set(layout.event_count()),
      events_on(layout.event_count());
  const ControlTargets targets{values.data(), values_set.data(), events_set.data(), events_on.data()};
  const std::string frame = read_vector_file("control");
  const std::uint32_t steps = layout.decode(frame, targets);
  CHECK(layout.encode(values.data(), events_on.data(), steps) == frame);
}
