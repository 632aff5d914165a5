// Several controllers stepping together: ControlRounds' rule, and HotPath serving their rounds.

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <coupler/serve/control_rounds.hpp>
#include <coupler/serve/control_scatter.hpp>
#include <coupler/serve/hot_path.hpp>
#include <coupler/serve/sensor_gather.hpp>
#include <coupler/serve/stepper.hpp>
#include <coupler/transport/client.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/wire/sensor_layout.hpp>

#include "test_endpoints.hpp"
#include "echo_simulation.hpp"
#include "zero_due_in.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Two robots, "left" and "right", of one joint each; layout order: left (object 0), right (object 1).
HandshakeMessage two_robots() {
  ObjectDescription robot;
  robot.controls = {"joint"};
  robot.control_types = {ValueType::Angle};
  robot.joint_sensors = {"joint"};
  robot.joint_sensor_types = {ValueType::Angle};
  HandshakeMessage handshake;
  handshake.objects = {{"left", robot}, {"right", robot}};
  handshake.time_step = 0.01;
  return handshake;
}

ControlMessage drive(const std::string& robot, double value, std::uint64_t steps = 0) {
  return ControlMessage::builder().object(robot).values({value}).steps(steps);
}

// A simulation whose readings are its last controls, and two controllers: `left` drives object 0, `right` object 1.
class TwoControllers : public test::EchoSimulation {
 public:
  explicit TwoControllers(Stepper* stepping = nullptr)
      : EchoSimulation(two_robots(), 2, {{0, 0, 1.0, -kInf, kInf}, {1, 1, 1.0, -kInf, kInf}}),
        server(fresh_address("inproc")),
        left(server.endpoint(), ClientOptions{2000ms}),
        right(server.endpoint(), ClientOptions{2000ms}),
        path(hot_path(stepping ? *stepping : clock)),
        controllers{{test::greeted_peer(server, left, two_robots()), {0}},
                    {test::greeted_peer(server, right, two_robots()), {1}}} {}

  HotPathOutcome run(std::chrono::milliseconds return_after = 100ms) {
    return path->run(server, controllers, rounds, return_after);
  }

  std::vector<std::string> peers() const { return {controllers[0].peer, controllers[1].peer}; }

  Server server;
  Client left, right;
  std::unique_ptr<HotPath> path;
  ControlRounds rounds;
  std::vector<HotPathController> controllers;
};

}  // namespace

TEST_CASE("a round is due once every controller holds a Control, and takes the fewest steps any asked for",
          "[control_rounds]") {
  ControlRounds rounds;
  const std::vector<std::string> both = {"a", "b"};
  rounds.hold("a", 5);
  CHECK_FALSE(rounds.due(both));
  rounds.hold("b", 0);  // no steps field: one step
  REQUIRE(rounds.due(both));
  CHECK(*rounds.due(both) == 1);
  const ControlRounds::Round round = rounds.take(both);
  CHECK(round.peers == both);
  CHECK(round.steps == 1);
  CHECK(rounds.size() == 0);
}

TEST_CASE("a controller's second Control cannot wait while its first does", "[control_rounds]") {
  ControlRounds rounds;
  rounds.hold("a", 1);
  CHECK_THROWS_AS(rounds.hold("a", 1), Error);
}

TEST_CASE("a controller that left holds no round back and its waiting Control is dropped", "[control_rounds]") {
  ControlRounds rounds;
  rounds.hold("a", 2);
  rounds.hold("gone", 1);
  const ControlRounds::Round round = rounds.take({"a"});
  CHECK(round.peers == std::vector<std::string>{"a"});
  CHECK(round.steps == 2);
  CHECK_FALSE(rounds.holds("gone"));
  rounds.hold("b", 1);
  rounds.drop("b");
  CHECK_FALSE(rounds.due({"b"}));
  CHECK_FALSE(rounds.due({}));
}

TEST_CASE("the hot path holds one controller's Control until the other's arrives, then answers both alike",
          "[hot_path][control_rounds]") {
  TwoControllers rig;
  rig.left.send(drive("left", 0.5, 3));
  HotPathOutcome outcome = rig.run();
  CHECK(outcome.controls == 1);
  CHECK(outcome.rounds == 0);
  CHECK(rig.rounds.holds(rig.controllers[0].peer));
  CHECK_FALSE(rig.left.wait(0ms));

  rig.right.send(drive("right", -0.25, 2));
  outcome = rig.run();
  CHECK(outcome.controls == 1);
  CHECK(outcome.rounds == 1);
  CHECK(outcome.steps == 2);
  const double expected[] = {0.5, -0.25};
  const std::string frame = rig.sensors.encode(expected, 0.02);
  CHECK(rig.left.receive_frame(2000ms) == frame);
  CHECK(rig.right.receive_frame(2000ms) == frame);
  CHECK(rig.rounds.size() == 0);
}

TEST_CASE("a round complete when the hot path starts (its other controller left) is stepped first",
          "[hot_path][control_rounds]") {
  TwoControllers rig;
  rig.left.send(drive("left", 0.5, 3));
  HotPathOutcome outcome = rig.run();
  REQUIRE(rig.rounds.holds(rig.controllers[0].peer));
  rig.controllers.pop_back();  // the caller let the right controller go: the left one's Control waits for no one
  outcome = rig.run(20ms);
  CHECK(outcome.rounds == 1);
  CHECK(outcome.steps == 3);
  const double expected[] = {0.5, 0.0};
  CHECK(rig.left.receive_frame(2000ms) == rig.sensors.encode(expected, 0.03));
  CHECK(rig.rounds.size() == 0);
}

TEST_CASE("the Control handed to the hot path once its robot is claimed waits for the round and is answered with it",
          "[hot_path][control_rounds]") {
  TwoControllers rig;
  rig.controllers[1].objects.clear();  // the right controller drives nothing yet
  rig.right.send(drive("right", -0.25, 2));
  HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  rig.controllers[1].objects = {1};  // the caller claims the robot
  outcome = rig.path->run(rig.server, rig.controllers, rig.rounds, 100ms, 0, std::nullopt, false,
                          std::move(outcome.request));
  CHECK(outcome.controls == 1);
  CHECK_FALSE(outcome.request);
  CHECK(rig.rounds.holds(rig.controllers[1].peer));
  rig.left.send(drive("left", 0.5, 3));
  outcome = rig.run();
  CHECK(outcome.rounds == 1);
  const double expected[] = {0.5, -0.25};
  const std::string frame = rig.sensors.encode(expected, 0.02);
  CHECK(rig.left.receive_frame(2000ms) == frame);
  CHECK(rig.right.receive_frame(2000ms) == frame);
}

TEST_CASE("the hot path hands back a Control for a robot its controller does not drive, applying nothing",
          "[hot_path][control_rounds]") {
  TwoControllers rig;
  rig.right.send(drive("left", 0.5));
  const HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  CHECK(outcome.request->peer() == rig.controllers[1].peer);
  CHECK(outcome.controls == 0);
  CHECK(rig.rounds.size() == 0);
  CHECK(rig.state[0] == 0.0);
}

TEST_CASE("the hot path answers every Control of a failing round with InternalError and reports it",
          "[hot_path][control_rounds]") {
  test::FailingStepper failing;
  TwoControllers rig(&failing);
  rig.left.send(drive("left", 0.0));
  rig.right.send(drive("right", 0.0));
  HotPathOutcome outcome = rig.run();
  if (outcome.rounds == 0) outcome = rig.run();  // the second Control came after the first run returned
  CHECK(outcome.failure == "the physics diverged");
  CHECK(outcome.error_answers == 2);
  for (Client* client : {&rig.left, &rig.right}) {
    const Message answer = client->receive(2000ms);
    REQUIRE(std::holds_alternative<ErrorMessage>(answer));
    CHECK(std::get<ErrorMessage>(answer).code == static_cast<int>(ErrorCode::InternalError));
  }
}

TEST_CASE("paced, the hot path returns with a round's long-held answers, serves a reader, then sends both when due",
          "[hot_path][control_rounds]") {
  TwoControllers rig;
  rig.left.send(drive("left", 0.5, 5));
  rig.right.send(drive("right", -0.25, 5));  // five steps of 10 ms: due 50 ms from now
  const auto started = std::chrono::steady_clock::now();
  RunClock clock = test::zero_due_in(0.0);
  const HotPathPacing pacing{&clock, 0.01, 0.01};
  HotPathOutcome taken = rig.path->run(rig.server, rig.controllers, rig.rounds, 20ms, 0, pacing);
  if (taken.controls < 2) {
    // The second Control came after the first run returned.
    taken = rig.path->run(rig.server, rig.controllers, rig.rounds, 20ms, 0, pacing);
  }
  REQUIRE(taken.answer_held);
  CHECK(taken.steps == 5);
  CHECK(taken.rounds == 0);  // stepped, not answered
  CHECK_FALSE(taken.simulated_time);
  CHECK_FALSE(rig.left.wait(0ms));

  Client reader(rig.server.endpoint(), ClientOptions{2000ms});
  reader.send(SensorRequestMessage{});
  const HotPathOutcome answered = rig.path->run(rig.server, rig.controllers, rig.rounds, 80ms, 0, pacing);
  const std::string read = reader.receive_frame(2000ms);
  const std::string left = rig.left.receive_frame(2000ms);
  CHECK(std::chrono::steady_clock::now() - started >= 50ms);
  CHECK(read == left);  // the state the held answers report
  CHECK(rig.right.receive_frame(2000ms) == left);
  CHECK(answered.reads == 1);
  CHECK(answered.rounds == 1);
  CHECK_FALSE(answered.answer_held);
  REQUIRE(answered.simulated_time);
  CHECK(*answered.simulated_time == Approx(0.05));
}
