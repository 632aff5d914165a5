// ControlScatter: a Control's flat arrays written into a simulation's control array.

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <vector>

#include <coupler/serve/control_scatter.hpp>
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
