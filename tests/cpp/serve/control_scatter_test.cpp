// ControlScatter: a Control's flat arrays written into a simulation's control array and mocap bodies' poses.

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <coupler/serve/control_scatter.hpp>
#include <coupler/serve/quaternion_length.hpp>
#include <coupler/wire/error.hpp>

using namespace coupler;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Two objects: object 0 has values 0 and 1 (to places 3 and 0, the second
// geared by 2 and limited to [-1, 1]); object 1 has value 2 (to place 1).
// One event, to place 2.
ControlScatter scatter_into(std::vector<double>& target) {
  return ControlScatter(target.data(), target.size(), 2,
                        {{0, 3, 1.0, -kInf, kInf}, {0, 0, 2.0, -1.0, 1.0}, {1, 1, 1.0, -kInf, kInf}},
                        {{2, -0.5, 0.7}});
}

}  // namespace

TEST_CASE("control scatter writes the values of the objects a Control carries, scaled", "[control_scatter]") {
  std::vector<double> target(4, 9.0);
  const ControlScatter scatter = scatter_into(target);
  const double values[] = {0.25, 0.5, 4.0};
  const std::uint8_t values_set[] = {1, 0};
  const std::uint8_t no_events[] = {0};
  scatter.apply(values, values_set, no_events, no_events);
  CHECK(target == std::vector<double>{1.0, 9.0, 9.0, 0.25});
}

TEST_CASE("control scatter writes an event's on or off value only when the event is set", "[control_scatter]") {
  std::vector<double> target(4, 9.0);
  const ControlScatter scatter = scatter_into(target);
  const double values[] = {0.0, 0.0, 0.0};
  const std::uint8_t no_objects[] = {0, 0};
  const std::uint8_t set[] = {1}, unset[] = {0}, on[] = {1}, off[] = {0};
  scatter.apply(values, no_objects, unset, on);
  CHECK(target[2] == 9.0);
  scatter.apply(values, no_objects, set, on);
  CHECK(target[2] == 0.7);
  scatter.apply(values, no_objects, set, off);
  CHECK(target[2] == -0.5);
}

TEST_CASE("control scatter reports values written outside their range by index", "[control_scatter]") {
  std::vector<double> target(4, 0.0);
  const ControlScatter scatter = scatter_into(target);
  const double values[] = {100.0, 0.75, -100.0};
  const std::uint8_t both[] = {1, 1};
  const std::uint8_t no_events[] = {0};
  CHECK(scatter.apply(values, both, no_events, no_events) == std::vector<std::size_t>{1});
  CHECK(target[0] == 1.5);  // written as sent: the simulation clamps
}

TEST_CASE("control scatter refuses a place outside the control array", "[control_scatter]") {
  std::vector<double> target(2, 0.0);
  CHECK_THROWS_AS(ControlScatter(target.data(), target.size(), 1, {{0, 2, 1.0, -kInf, kInf}}, {}), Error);
  CHECK_THROWS_AS(ControlScatter(target.data(), target.size(), 1, {}, {{5, 0.0, 1.0}}), Error);
}

TEST_CASE("control scatter refuses a value of an object outside the count", "[control_scatter]") {
  std::vector<double> target(2, 0.0);
  CHECK_THROWS_AS(ControlScatter(target.data(), target.size(), 1, {{1, 0, 1.0, -kInf, kInf}}, {}), Error);
}

TEST_CASE("control scatter divides by a value's divisor rather than multiplying by its reciprocal",
          "[control_scatter]") {
  std::vector<double> target(1, 0.0);
  const ControlScatter scatter(target.data(), target.size(), 1, {{0, 0, 1.0, -kInf, kInf, 7.0}}, {});
  const double values[] = {0.1};
  const std::uint8_t set[] = {1};
  const std::uint8_t no_events[] = {0};
  scatter.apply(values, set, no_events, no_events);
  // 0.1 * (1 / 7) is one bit off 0.1 / 7: a motor's ctrl is value / gear exactly.
  REQUIRE(0.1 * (1.0 / 7.0) != 0.1 / 7.0);
  CHECK(target[0] == 0.1 / 7.0);
}

namespace {

// Object 0 is a mocap body (body 1 of two): an actuator's value (to place 0,
// limited to [-1, 1]), then its pose; object 1 has one value, to place 1. The
// values array: [actuator, x, y, z, qw, qx, qy, qz, object 1's value].
struct PosedScene {
  std::vector<double> ctrl = std::vector<double>(2, 9.0);
  std::vector<double> position = std::vector<double>(6, 9.0);
  std::vector<double> quaternion = std::vector<double>(8, 9.0);
  ControlScatter scatter{ctrl.data(), ctrl.size(), 2, {{0, 0, 1.0, -1.0, 1.0}, {1, 1, 1.0, -kInf, kInf}}, {},
                         {position.data(), position.size(), quaternion.data(), quaternion.size()},
                         {{0, 1, 1, "target"}}};
};

const std::uint8_t kBoth[] = {1, 1};
const std::uint8_t kNoEvents[] = {0};

}  // namespace

TEST_CASE("control scatter writes a mocap body's position as sent and its quaternion divided by its length",
          "[control_scatter]") {
  PosedScene scene;
  REQUIRE(scene.scatter.value_count() == 9);
  const double values[] = {0.5, 0.1, -0.2, 0.3, 0.0, 3.0, 0.0, 4.0, -7.0};
  const std::vector<std::size_t> reported = scene.scatter.apply(values, kBoth, kNoEvents, kNoEvents);
  CHECK(scene.ctrl == std::vector<double>{0.5, -7.0});  // the values around the pose go to their places
  CHECK(scene.position == std::vector<double>{9.0, 9.0, 9.0, 0.1, -0.2, 0.3});
  CHECK(scene.quaternion == std::vector<double>{9.0, 9.0, 9.0, 9.0, 0.0, 0.6, 0.0, 0.8});
  CHECK(reported == std::vector<std::size_t>{4});  // the quaternion, by its qw, was of length 5
}

TEST_CASE("control scatter reports a normalised quaternion before the values outside their range",
          "[control_scatter]") {
  PosedScene scene;
  const double values[] = {2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0};
  CHECK(scene.scatter.apply(values, kBoth, kNoEvents, kNoEvents) == std::vector<std::size_t>{4, 0});
}

TEST_CASE("control scatter reports no quaternion of unit length up to its tolerance", "[control_scatter]") {
  PosedScene scene;
  const double half = std::sqrt(0.5);
  const double values[] = {0.0, 0.0, 0.0, 0.0, half, 0.0, half, 0.0, 0.0};
  CHECK(scene.scatter.apply(values, kBoth, kNoEvents, kNoEvents).empty());
  CHECK(scene.quaternion[4] == half / quaternion_length(half, 0.0, half, 0.0));
}

TEST_CASE("control scatter leaves a mocap body whose object the Control does not carry where it is",
          "[control_scatter]") {
  PosedScene scene;
  const double values[] = {0.5, 0.1, 0.2, 0.3, 1.0, 0.0, 0.0, 0.0, -7.0};
  const std::uint8_t second[] = {0, 1};
  scene.scatter.apply(values, second, kNoEvents, kNoEvents);
  CHECK(scene.position == std::vector<double>(6, 9.0));
  CHECK(scene.quaternion == std::vector<double>(8, 9.0));
  CHECK(scene.ctrl == std::vector<double>{9.0, -7.0});
}

TEST_CASE("control scatter refuses a zero quaternion naming its body and writes nothing of the Control",
          "[control_scatter]") {
  PosedScene scene;
  const double values[] = {0.5, 0.1, 0.2, 0.3, 0.0, -0.0, 0.0, 0.0, -7.0};
  CHECK(scene.scatter.refuses(values, kBoth));
  try {
    scene.scatter.apply(values, kBoth, kNoEvents, kNoEvents);
    FAIL("a zero quaternion was applied");
  } catch (const ProtocolError& refused) {
    CHECK(refused.code() == ErrorCode::ControlMismatch);
    CHECK(refused.text() ==
          "control does not match the handshake: the orientation (qw, qx, qy, qz) of mocap body 'target' is zero, "
          "which is no rotation; (1, 0, 0, 0) keeps the world's");
  }
  CHECK(scene.ctrl == std::vector<double>(2, 9.0));
  CHECK(scene.position == std::vector<double>(6, 9.0));
  CHECK_THROWS_WITH(scene.scatter.check(values, kBoth, " in world 3"),
                    Catch::Contains("mocap body 'target' in world 3 is zero"));
}

namespace {

// MuJoCo's mjMAXVAL is 1e10; here 100. Object 0 ("arm") has a motor of gear 4 (a value's limit 25) and one of
// scale 0 (no limit), object 1 ("cart") a force with divisor 2 (limit 200), then a mocap body's pose.
struct LimitedScene {
  std::vector<double> ctrl = std::vector<double>(3, 9.0);
  std::vector<double> position = std::vector<double>(3, 9.0);
  std::vector<double> quaternion = std::vector<double>(4, 9.0);
  ControlScatter scatter{ctrl.data(),
                         ctrl.size(),
                         3,
                         {{0, 0, 4.0, -kInf, kInf, 1.0, "arm", "shoulder"},
                          {0, 1, 0.0, -kInf, kInf, 1.0, "arm", "idle"},
                          {1, 2, 1.0, -kInf, kInf, 2.0, "cart", "push"}},
                         {},
                         {position.data(), position.size(), quaternion.data(), quaternion.size()},
                         {{2, 3, 0, "target"}},
                         100.0};
};

const std::uint8_t kAll[] = {1, 1, 1};

}  // namespace

TEST_CASE("control scatter gives each value the largest magnitude it may have", "[control_scatter]") {
  LimitedScene scene;
  CHECK(scene.scatter.value_limits() == std::vector<double>{25.0, kInf, 200.0, 100.0, 100.0, 100.0, 100.0, 100.0,
                                                            100.0, 100.0});
}

TEST_CASE("control scatter takes a value at its limit and refuses one beyond, naming it and its limit",
          "[control_scatter]") {
  LimitedScene scene;
  const double at_limit[] = {-25.0, 1e300, 200.0, 100.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
  CHECK_FALSE(scene.scatter.refuses(at_limit, kAll));
  scene.scatter.apply(at_limit, kAll, kNoEvents, kNoEvents);
  CHECK(scene.ctrl == std::vector<double>{-100.0, 0.0, 100.0});

  const double beyond[] = {0.0, 0.0, -200.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
  CHECK(scene.scatter.refuses(beyond, kAll));
  try {
    scene.scatter.apply(beyond, kAll, kNoEvents, kNoEvents);
    FAIL("a value beyond its limit was applied");
  } catch (const ProtocolError& refused) {
    CHECK(refused.code() == ErrorCode::ControlMismatch);
    CHECK(refused.text() == "control does not match the handshake: control 'push' of object 'cart' is -200.5, "
                            "beyond the 200 MuJoCo accepts");
  }
  CHECK(scene.ctrl == std::vector<double>{-100.0, 0.0, 100.0});
}

TEST_CASE("control scatter names the first value beyond its limit, a pose's by its own name, after `where`",
          "[control_scatter]") {
  LimitedScene scene;
  const double values[] = {0.0, 0.0, 0.0, 0.0, 1e3, 0.0, 0.0, 0.0, 0.0, 1e9};
  CHECK_THROWS_WITH(scene.scatter.check(values, kAll, " in world 2"),
                    "control does not match the handshake: control 'y' of object 'target' in world 2 is 1000, "
                    "beyond the 100 MuJoCo accepts");
}

TEST_CASE("control scatter refuses a value beyond its limit only for an object the Control carries",
          "[control_scatter]") {
  LimitedScene scene;
  const double values[] = {1e6, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0};
  const std::uint8_t cart_only[] = {0, 1, 0};
  CHECK_FALSE(scene.scatter.refuses(values, cart_only));
  CHECK_NOTHROW(scene.scatter.check(values, cart_only));
}

TEST_CASE("control scatter names a value beyond its limit before a zero quaternion", "[control_scatter]") {
  LimitedScene scene;
  const double values[] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  CHECK_THROWS_WITH(scene.scatter.check(values, kAll), Catch::Contains("mocap body 'target' is zero"));
  const double also_beyond[] = {26.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  CHECK_THROWS_WITH(scene.scatter.check(also_beyond, kAll), Catch::Contains("control 'shoulder' of object 'arm' is 26"));
}

TEST_CASE("control scatter refuses a pose outside its arrays or over another's values", "[control_scatter]") {
  std::vector<double> ctrl(1), position(3), quaternion(4);
  const ControlScatter::PoseTargets targets{position.data(), position.size(), quaternion.data(), quaternion.size()};
  CHECK_THROWS_AS(ControlScatter(ctrl.data(), ctrl.size(), 1, {}, {}, targets, {{0, 0, 1, "far"}}), Error);
  CHECK_THROWS_AS(ControlScatter(ctrl.data(), ctrl.size(), 1, {}, {}, targets, {{0, 0, 0, "a"}, {0, 3, 0, "b"}}),
                  Error);
  CHECK_THROWS_AS(ControlScatter(ctrl.data(), ctrl.size(), 1, {}, {}, {}, {{0, 0, 0, "nowhere"}}), Error);
}

TEST_CASE("quaternion length is exact where the square root is, and follows math.hypot at the edges",
          "[control_scatter]") {
  CHECK(quaternion_length(1.0, 2.0, -2.0, 4.0) == 5.0);
  CHECK(quaternion_length(0.0, 0.0, 0.0, 0.0) == 0.0);
  CHECK(quaternion_length(1e300, 1e300, 0.0, 0.0) == std::sqrt(2.0) * 1e300);
  CHECK(quaternion_length(5e-324, 0.0, 0.0, 0.0) == 5e-324);
  CHECK(quaternion_length(std::nan(""), kInf, 0.0, 0.0) == kInf);
  CHECK(std::isnan(quaternion_length(std::nan(""), 1.0, 0.0, 0.0)));
}
