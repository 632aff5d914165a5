// HotPath with a body whose pose a Control sets (a MuJoCo mocap body): the
// next step starts afresh, and a zero quaternion is the caller's to refuse.

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

#include "echo_simulation.hpp"
#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// "arm", a joint read back as its control, and "target", a body whose pose is its seven controls.
HandshakeMessage posed_handshake() {
  ObjectDescription arm;
  arm.controls = {"shoulder"};
  arm.control_types = {ValueType::Angle};
  arm.joint_sensors = {"shoulder"};
  arm.joint_sensor_types = {ValueType::Angle};
  ObjectDescription target;
  target.controls = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  target.control_types = {ValueType::MocapPosition,   ValueType::MocapPosition,   ValueType::MocapPosition,
                          ValueType::MocapQuaternion, ValueType::MocapQuaternion, ValueType::MocapQuaternion,
                          ValueType::MocapQuaternion};
  HandshakeMessage handshake;
  handshake.objects = {{"arm", arm}, {"target", target}};
  handshake.time_step = 0.01;
  return handshake;
}

// Counts the steps that had to start afresh.
class PoseStepper final : public Stepper {
 public:
  void step(std::uint64_t steps) override {
    steps_ += steps;
    if (afresh_) ++fresh_steps;
    afresh_ = false;
  }
  void repositioned() override { afresh_ = true; }
  double time() const override { return static_cast<double>(steps_) * 0.01; }

  int fresh_steps = 0;

 private:
  std::uint64_t steps_ = 0;
  bool afresh_ = false;
};

// The arm's joint read back as its control, and the target's pose written where MuJoCo keeps a mocap body's.
struct PosedRig : test::EchoSimulation {
  PosedRig()
      : EchoSimulation(posed_handshake(), 1, {{0, 0, 1.0, -kInf, kInf}}, {}, {{1, 1, 0, "target"}}),
        server(fresh_address("inproc")),
        controller(server.endpoint(), ClientOptions{2000ms}),
        peer(test::greeted_peer(server, controller, posed_handshake())),
        path(hot_path(stepper)) {}

  HotPathOutcome run() { return path->run(server, peer, 50ms); }

  Server server;
  Client controller;
  std::string peer;
  PoseStepper stepper;
  std::unique_ptr<HotPath> path;
};

ControlMessage posed_control(double shoulder, std::vector<double> pose) {
  return ControlMessage::builder().object("arm").values({shoulder}).object("target").values(std::move(pose)).steps(1);
}

}  // namespace

TEST_CASE("the hot path writes a Control's pose and starts the step after it afresh", "[hot_path]") {
  PosedRig rig;
  rig.controller.send(posed_control(0.5, {0.1, 0.2, 0.3, 0.0, 0.0, 2.0, 0.0}));
  const HotPathOutcome outcome = rig.run();

  (void)rig.controller.receive_frame(2000ms);
  CHECK(outcome.controls == 1);
  CHECK(rig.stepper.fresh_steps == 1);
  CHECK(rig.position == std::vector<double>{0.1, 0.2, 0.3});
  CHECK(rig.quaternion == std::vector<double>{0.0, 0.0, 1.0, 0.0});
  CHECK(outcome.clamped == 1);  // the quaternion was normalised, and reported by its qw
  CHECK(outcome.first_clamped == std::vector<std::size_t>{4});
}

TEST_CASE("the hot path hands a Control with a zero quaternion back to its caller and applies none of it", "[hot_path]") {
  PosedRig rig;
  rig.controller.send(posed_control(0.5, {0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 0.0}));
  const HotPathOutcome outcome = rig.run();

  REQUIRE(outcome.request);
  CHECK(outcome.controls == 0);
  CHECK(rig.state == std::vector<double>{0.0});
  CHECK(rig.position == std::vector<double>(3, 9.0));
  CHECK(rig.stepper.fresh_steps == 0);
}
