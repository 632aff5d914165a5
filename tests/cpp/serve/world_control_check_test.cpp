// world_control_problem: the one check of a Control for every world, naming the first problem in one line.

#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include <coupler/serve/world_control_check.hpp>
#include <coupler/wire/limits.hpp>

using namespace coupler;

namespace {

// Three worlds of two numbers each (a control value and an event), qpos of 2 and qvel of 1.
constexpr WorldControlShape kShape{3, 2, 2, 1};

ControlMessage fitting() {
  ControlMessage control;
  control.worlds = 3;
  control.world_controls = {0.1, 1, 0.2, 0, 0.3, 1};
  return control;
}

}  // namespace

TEST_CASE("a Control that fits the batch has no problem", "[world_control_check]") {
  CHECK_FALSE(world_control_problem(fitting(), kShape));
  ControlMessage no_step = fitting();
  no_step.world_controls.clear();
  CHECK_FALSE(world_control_problem(no_step, kShape));
}

TEST_CASE("a Control for another number of worlds is named with both counts", "[world_control_check]") {
  ControlMessage control = fitting();
  control.worlds = 4;
  CHECK(world_control_problem(control, kShape) == "a Control for 4 worlds; this server has 3");
}

TEST_CASE("a Control for every world asking for too many steps names the limit", "[world_control_check]") {
  ControlMessage control = fitting();
  control.steps = limits::kMaxStepsPerControl + 1;
  CHECK(world_control_problem(control, kShape) == "steps 100001 exceeds the maximum of 100000");
}

TEST_CASE("values of the wrong count are named with the count every world takes", "[world_control_check]") {
  ControlMessage control = fitting();
  control.world_controls.pop_back();
  CHECK(world_control_problem(control, kShape) ==
        "worldControls has 5 numbers; 3 worlds of 2 (controls, then events) take 6, or none to step no world");
}

TEST_CASE("a value that is not finite is named by its world and place", "[world_control_check]") {
  ControlMessage control = fitting();
  control.world_controls[5] = std::numeric_limits<double>::quiet_NaN();
  CHECK(world_control_problem(control, kShape) == "number 1 of world 2 is nan");
  control.world_controls[5] = -std::numeric_limits<double>::infinity();
  CHECK(world_control_problem(control, kShape) == "number 1 of world 2 is -inf");
}

TEST_CASE("worlds to reset out of order, twice or beyond the count are refused with the list", "[world_control_check]") {
  ControlMessage control = fitting();
  for (const auto& resets : {std::vector<std::uint32_t>{2, 1}, {1, 1}, {0, 3}}) {
    control.reset_worlds = resets;
    const auto problem = world_control_problem(control, kShape);
    REQUIRE(problem);
    CHECK(problem->rfind("resetWorlds must list worlds below 3 in ascending order, each once; got [", 0) == 0);
  }
}

TEST_CASE("a long list of worlds to reset is shown by its first ten", "[world_control_check]") {
  ControlMessage control = fitting();
  control.reset_worlds = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  CHECK(world_control_problem(control, kShape) ==
        "resetWorlds must list worlds below 3 in ascending order, each once; got [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] ...");
}

TEST_CASE("states to reset to of the wrong size are named with the size each reset world takes",
          "[world_control_check]") {
  ControlMessage control = fitting();
  control.reset_worlds = {0, 2};
  control.reset_qpos = {1, 2, 3};
  CHECK(world_control_problem(control, kShape) ==
        "resetQpos has 3 numbers; 2 reset worlds of 2 take 4, or none for the scene's initial state");
  control.reset_qpos = {1, 2, 3, 4};
  control.reset_qvel = {1};
  CHECK(world_control_problem(control, kShape) ==
        "resetQvel has 1 numbers; 2 reset worlds of 1 take 2, or none for the scene's initial state");
}

TEST_CASE("a state to reset to that is not finite is refused", "[world_control_check]") {
  ControlMessage control = fitting();
  control.reset_worlds = {1};
  control.reset_qpos = {0, std::numeric_limits<double>::infinity()};
  CHECK(world_control_problem(control, kShape) == "resetQpos holds a number that is not finite");
}
