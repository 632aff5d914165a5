// HotPath::run_free: a free run's steps on the wall clock and its answers, in C++.

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <coupler/serve/control_scatter.hpp>
#include <coupler/serve/hot_path.hpp>
#include <coupler/serve/sensor_gather.hpp>
#include <coupler/serve/stepper.hpp>
#include <coupler/transport/client.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/sensor_layout.hpp>

#include "test_endpoints.hpp"
#include "echo_simulation.hpp"
#include "zero_due_in.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kTimeStep = 0.01;

HandshakeMessage one_robot() {
  ObjectDescription robot;
  robot.controls = {"joint"};
  robot.control_types = {ValueType::Angle};
  robot.joint_sensors = {"joint"};
  robot.joint_sensor_types = {ValueType::Angle};
  HandshakeMessage handshake;
  handshake.objects = {{"robot", robot}};
  handshake.time_step = kTimeStep;
  return handshake;
}

// A simulation whose reading is its last control, and its controller.
class FreeRig : public test::EchoSimulation {
 public:
  explicit FreeRig(double stop_after = kInf)
      : EchoSimulation(one_robot(), 1, {{0, 0, 1.0, -kInf, kInf}}),
        server(fresh_address("inproc")),
        controller(server.endpoint(), ClientOptions{2000ms}),
        peer(test::greeted_peer(server, controller, one_robot())) {
    HotPathConfig config;
    config.stop_after = stop_after;
    path = hot_path(clock, config);
  }

  HotPathOutcome run(HotPathFreeRun free, std::chrono::milliseconds return_after = 100ms) {
    free.time_step = kTimeStep;
    free.clock = &pace;
    return path->run_free(server, peer, return_after, free);
  }

  // The run's clock: by default, simulated time 0 is not due for an hour, so no step is taken during a run.
  RunClock pace = test::zero_due_in(3600.0);

  Server server;
  Client controller;
  std::string peer;
  std::unique_ptr<HotPath> path;
};

}  // namespace

TEST_CASE("a free run answers a Control with the state it applied, taking no step", "[hot_path][free_run]") {
  FreeRig rig;
  rig.controller.send(ControlMessage::builder().object("robot").values({0.5}).steps(3));
  const HotPathOutcome outcome = rig.run({});
  const double expected[] = {0.5};
  CHECK(rig.controller.receive_frame(2000ms) == rig.sensors.encode(expected, 0.0));
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == 0);
  CHECK(outcome.fresh_control);
  CHECK_FALSE(outcome.simulated_time);
}

TEST_CASE("an unpaced free run steps as fast as it can until stop_after, counting steps without a Control",
          "[hot_path][free_run]") {
  FreeRig rig(0.05);
  rig.pace = RunClock(std::nullopt);  // as fast as it steps
  HotPathFreeRun free;
  free.fresh_control = true;  // a Control came before the first step
  const HotPathOutcome outcome = rig.run(free, 2000ms);
  CHECK(outcome.steps == 5);
  CHECK(outcome.steps_without_control == 4);
  CHECK_FALSE(outcome.fresh_control);
  REQUIRE(outcome.simulated_time);
  CHECK(*outcome.simulated_time == Approx(0.05));
}

TEST_CASE("a free run counts a step taken later than late_after as a missed deadline", "[hot_path][free_run]") {
  FreeRig rig(0.02);
  rig.pace = test::zero_due_in(-1.0);  // every step was due a second ago
  HotPathFreeRun free;
  free.late_after = kTimeStep;
  const HotPathOutcome outcome = rig.run(free, 2000ms);
  CHECK(outcome.steps == 2);
  CHECK(outcome.deadlines_missed == 2);
  CHECK(rig.pace.deadlines_missed() == 2);  // counted on the caller's clock
}

TEST_CASE("a free run hands back a request that is neither a Control of its controller nor a read",
          "[hot_path][free_run]") {
  FreeRig rig;
  rig.controller.send(ResetMessage{});
  const HotPathOutcome outcome = rig.run({});
  REQUIRE(outcome.request);
  CHECK(outcome.request->type() == MessageType::Reset);
  CHECK(outcome.steps == 0);
}

TEST_CASE("a free run needs its clock", "[hot_path][free_run]") {
  FreeRig rig;
  HotPathFreeRun free;
  free.time_step = kTimeStep;
  CHECK_THROWS_WITH(rig.path->run_free(rig.server, rig.peer, 10ms, free), "a free run needs its clock");
}
