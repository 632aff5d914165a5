// HotPath: a lone controller's Controls answered in C++, and what it hands back.

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <utility>
#include <vector>

#include <zmq.hpp>

#include <coupler/transport/client.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/serve/control_scatter.hpp>
#include <coupler/transport/frame_publisher.hpp>
#include <coupler/serve/hot_path.hpp>
#include <coupler/serve/mujoco_state.hpp>
#include <coupler/serve/sensor_gather.hpp>
#include <coupler/wire/sensor_layout.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/serve/stepper.hpp>

#include "test_endpoints.hpp"
#include "echo_simulation.hpp"
#include "zero_due_in.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

HandshakeMessage arm_handshake() {
  ObjectDescription arm;
  arm.controls = {"shoulder", "elbow"};
  arm.control_types = {ValueType::Angle, ValueType::Angle};
  arm.joint_sensors = {"shoulder", "elbow"};
  arm.joint_sensor_types = {ValueType::Angle};
  arm.control_events = {{"gripper", ValueType::Activated}};
  arm.sensors = {{"gripper_closed", {ValueType::Activated}}};
  HandshakeMessage handshake;
  handshake.objects = {{"arm", arm}};
  handshake.time_step = 0.01;
  return handshake;
}

// A simulation whose readings are its last controls (the shoulder limited to [-1, 1]; a control written larger in
// magnitude than `max_control` is refused), and its controller.
class Rig : public test::EchoSimulation {
 public:
  explicit Rig(HotPathConfig config = {}, double max_control = kInf)
      : EchoSimulation(arm_handshake(), 3, {{0, 0, 1.0, -1.0, 1.0}, {0, 1, 1.0, -kInf, kInf}}, {{2, 0.0, 1.0}}, {},
                       max_control),
        server(fresh_address("inproc")),
        controller(server.endpoint(), ClientOptions{2000ms}),
        peer(test::greeted_peer(server, controller, arm_handshake())) {
    make(config);
  }

  void make(HotPathConfig config) { path = hot_path(*stepper, config); }

  HotPathOutcome run(std::chrono::milliseconds return_after = 50ms) { return path->run(server, peer, return_after); }

  Server server;
  Client controller;
  std::string peer;
  Stepper* stepper = &clock;
  std::unique_ptr<HotPath> path;
};

ControlMessage arm_control(double shoulder, double elbow, std::uint64_t steps = 0) {
  return ControlMessage::builder().object("arm").values({shoulder, elbow}).event("gripper", true).steps(steps);
}


// A SUB socket on `context` following `publisher` (bound here on a fresh ipc address) from topic `prefix`.
zmq::socket_t subscribed(zmq::context_t& context, FramePublisher& publisher, const char* prefix, int timeout_ms) {
  zmq::socket_t subscriber(context, zmq::socket_type::sub);
  subscriber.set(zmq::sockopt::linger, 0);
  subscriber.set(zmq::sockopt::rcvtimeo, timeout_ms);
  subscriber.set(zmq::sockopt::subscribe, prefix);
  subscriber.connect(publisher.bind(PublisherBinding{fresh_address("ipc")}));
  return subscriber;
}

}  // namespace

TEST_CASE("the hot path answers its controller's Control with the frame of the state it stepped to", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 3));
  const HotPathOutcome outcome = rig.run();

  const std::string answer = rig.controller.receive_frame(2000ms);
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(answer == rig.sensors.encode(expected, 0.03));
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == 3);
  REQUIRE(outcome.simulated_time);
  CHECK(*outcome.simulated_time == 0.03);
  CHECK_FALSE(outcome.request);
}

TEST_CASE("the hot path takes a Control without steps as one step", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, 0.0));
  CHECK(rig.run().steps == 1);
  CHECK(rig.clock.steps() == 1);
}

TEST_CASE("the hot path hands back another peer's Control untouched", "[hot_path]") {
  Rig rig;
  Client other(rig.server.endpoint(), ClientOptions{2000ms});
  other.send(arm_control(0.5, 0.5));
  const HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  CHECK(outcome.request->peer() != rig.peer);
  CHECK(outcome.controls == 0);
  CHECK(rig.clock.steps() == 0);
  CHECK(rig.state == std::vector<double>{0.0, 0.0, 0.0});
}

TEST_CASE("the hot path serves first the Control handed to it, as if the peer it admits had just sent it",
          "[hot_path]") {
  Rig rig;
  Client newcomer(rig.server.endpoint(), ClientOptions{2000ms});
  newcomer.send(arm_control(0.5, -0.25, 2));
  HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  const std::string admitted = outcome.request->peer();
  // The caller admits the newcomer, which now drives alone.
  outcome = rig.path->run(rig.server, admitted, 50ms, 0, std::nullopt, false, std::move(outcome.request));
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(newcomer.receive_frame(2000ms) == rig.sensors.encode(expected, 0.02));
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == 2);
  CHECK_FALSE(outcome.request);
}

TEST_CASE("the hot path hands back the Control handed to it that it does not serve", "[hot_path]") {
  Rig rig;
  Client newcomer(rig.server.endpoint(), ClientOptions{2000ms});
  newcomer.send(arm_control(0.5, 0.5, HotPathConfig::kDefaultMaxSteps + 1));
  HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  const std::string admitted = outcome.request->peer();
  outcome = rig.path->run(rig.server, admitted, 50ms, 0, std::nullopt, false, std::move(outcome.request));
  REQUIRE(outcome.request);
  CHECK(outcome.request->peer() == admitted);
  CHECK(outcome.controls == 0);
  CHECK(rig.clock.steps() == 0);
}

TEST_CASE("the hot path hands back a request that is neither a Control nor a read", "[hot_path]") {
  Rig rig;
  rig.controller.send(ResetMessage{});
  const HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  CHECK(outcome.request->type() == MessageType::Reset);
}

TEST_CASE("the hot path answers its controller's SensorRequest with the frame of the current state", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 3));
  (void)rig.run();
  (void)rig.controller.receive_frame(2000ms);
  rig.controller.send(SensorRequestMessage{});
  const HotPathOutcome outcome = rig.run();
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(rig.controller.receive_frame(2000ms) == rig.sensors.encode(expected, 0.03));
  CHECK(outcome.reads == 1);
  CHECK_FALSE(outcome.request);
  CHECK(rig.clock.steps() == 3);
}

TEST_CASE("the hot path answers another peer's SensorRequest with the state, read afresh in a new run", "[hot_path]") {
  Rig rig;
  Client reader(rig.server.endpoint(), ClientOptions{2000ms});
  rig.state = {0.25, 0.5, 0.0};  // changed by the caller between runs
  rig.clock.step(2);
  reader.send(SensorRequestMessage{});
  const HotPathOutcome outcome = rig.run();
  const double expected[] = {0.25, 0.5, 0.0};
  CHECK(reader.receive_frame(2000ms) == rig.sensors.encode(expected, 0.02));
  CHECK(outcome.reads == 1);
  CHECK(outcome.controls == 0);
  CHECK_FALSE(outcome.request);
}

TEST_CASE("the hot path hands back another peer's SensorRequest asking for images", "[hot_path]") {
  Rig rig;
  Client reader(rig.server.endpoint(), ClientOptions{2000ms});
  reader.send(SensorRequestMessage{{ImageRequest{"eye", {"depth"}}}});
  const HotPathOutcome outcome = rig.run(2000ms);  // returns as soon as it hands the read back
  REQUIRE(outcome.request);
  CHECK(outcome.request->type() == MessageType::SensorRequest);
  CHECK(outcome.reads == 0);
}

TEST_CASE("the hot path hands back its controller's Control asking for images, nothing applied", "[hot_path]") {
  Rig rig;
  ControlMessage control = arm_control(0.5, -0.25, 2);
  control.images = {ImageRequest{"eye", {"rgb"}}};
  rig.controller.send(control);
  const HotPathOutcome outcome = rig.run(2000ms);
  REQUIRE(outcome.request);
  CHECK(outcome.request->type() == MessageType::Control);
  CHECK(outcome.controls == 0);
  CHECK(rig.clock.steps() == 0);
}

TEST_CASE("the hot path steps a Control its caller read, leaving its answer's readings to the caller",
          "[hot_path]") {
  Rig rig;
  ControlMessage control = arm_control(0.5, -0.25, 2);
  control.images = {ImageRequest{"eye", {"rgb"}}};
  const std::uint32_t steps = rig.controls.read(control, rig.targets());
  const HotPathOutcome outcome = rig.path->step_checked(steps);
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(outcome.answer_frame == rig.sensors.encode(expected, 0.02));
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == 2);
  REQUIRE(outcome.simulated_time);
  CHECK(*outcome.simulated_time == 0.02);
  CHECK(rig.clock.steps() == 2);
}

TEST_CASE("the hot path takes the chunks of a Control its caller answers in its next run, a reader served between two",
          "[hot_path]") {
  Rig rig;
  Client reader(rig.server.endpoint(), ClientOptions{2000ms});
  ControlMessage control = arm_control(0.5, -0.25, 250);
  control.images = {ImageRequest{"eye", {"rgb"}}};
  const std::uint32_t steps = rig.controls.read(control, rig.targets());
  const HotPathOutcome started = rig.path->start_chunks(steps);
  CHECK(started.controls == 1);
  CHECK(started.long_steps == 250);
  CHECK(started.answer_frame.empty());
  CHECK(rig.clock.steps() == 0);
  CHECK_THROWS_AS(rig.path->step_checked(1), Error);  // one Control at a time
  reader.send(SensorRequestMessage{});
  const HotPathOutcome outcome = rig.run(2000ms);
  CHECK(outcome.long_done);
  CHECK(outcome.steps == 250);
  CHECK(outcome.controls == 0);  // counted when it was applied
  CHECK(outcome.long_steps == 0);
  CHECK_FALSE(outcome.simulated_time);  // nothing answered: the caller answers it
  CHECK(rig.clock.steps() == 250);
  CHECK(outcome.reads == 1);
  const Message read = decode(reader.receive_frame(2000ms));
  REQUIRE(std::holds_alternative<SensorMessage>(read));
  CHECK(std::get<SensorMessage>(read).simulated_time < 2.5);  // the state of a chunk before the last
  CHECK_FALSE(rig.path->end_long_control(rig.server, "stopped"));  // nothing left in progress
}

TEST_CASE("the hot path stops a Control its caller answers at the step reaching stop_after, for the caller to end",
          "[hot_path]") {
  HotPathConfig config;
  config.stop_after = 1.5;
  config.time_step = 0.01;
  Rig rig(config);
  ControlMessage control = arm_control(0.5, -0.25, 400);
  control.images = {ImageRequest{"eye", {"rgb"}}};
  const std::uint32_t steps = rig.controls.read(control, rig.targets());
  REQUIRE(rig.path->start_chunks(steps).controls == 1);
  const HotPathOutcome outcome = rig.run(2000ms);
  CHECK(outcome.long_at_stop_after);
  CHECK_FALSE(outcome.long_done);
  CHECK(outcome.long_steps == 400);
  CHECK(outcome.long_taken == 150);
  CHECK(rig.clock.steps() == 150);
  CHECK(rig.path->end_long_control(rig.server, "stopped"));  // ended (sending nothing): the caller answers it
  CHECK_FALSE(rig.path->end_long_control(rig.server, "stopped"));
}

TEST_CASE("the hot path answers a Control its caller read with InternalError when the simulation fails",
          "[hot_path]") {
  Rig rig;
  test::FailingStepper failing;
  rig.stepper = &failing;
  rig.make({});
  const HotPathOutcome outcome = rig.path->step_checked(1);
  CHECK(outcome.failure == "the physics diverged");
  CHECK(outcome.error_answers == 1);
  const Message answer = decode(outcome.answer_frame);
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  CHECK(std::get<ErrorMessage>(answer).text == "internal error: the physics diverged");
}

TEST_CASE("a failure of several lines is answered with its first, and reported whole to the caller", "[hot_path]") {
  Rig rig;
  test::FailingStepper failing("the physics diverged\n  at step 12\n  in mj_step");
  rig.stepper = &failing;
  rig.make({});
  const HotPathOutcome outcome = rig.path->step_checked(1);
  CHECK(outcome.failure == "the physics diverged\n  at step 12\n  in mj_step");  // for the server's log
  const Message answer = decode(outcome.answer_frame);
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  CHECK(std::get<ErrorMessage>(answer).text == "internal error: the physics diverged");
}

TEST_CASE("the hot path answers one read of others per request of the controller while it drives", "[hot_path]") {
  HotPathConfig config;
  config.reader_patience = 10s;  // longer than the run: only the controller's request lets the second read through
  Rig rig(config);
  Client first(rig.server.endpoint(), ClientOptions{2000ms});
  Client second(rig.server.endpoint(), ClientOptions{2000ms});
  first.send(SensorRequestMessage{});
  second.send(SensorRequestMessage{});
  std::thread controller([&] {
    std::this_thread::sleep_for(50ms);
    rig.controller.send(arm_control(0.5, -0.25, 1));
    (void)rig.controller.receive_frame(2000ms);
  });
  const HotPathOutcome outcome = rig.run(1000ms);
  controller.join();
  const double before[] = {0.0, 0.0, 0.0};
  const double after[] = {0.5, -0.25, 1.0};
  const std::vector<std::string> answers{first.receive_frame(2000ms), second.receive_frame(2000ms)};
  CHECK(std::count(answers.begin(), answers.end(), rig.sensors.encode(before, 0.0)) == 1);
  CHECK(std::count(answers.begin(), answers.end(), rig.sensors.encode(after, 0.01)) == 1);
  CHECK(outcome.reads == 2);
  CHECK(outcome.controls == 1);
}

TEST_CASE("the hot path answers one more read of others when the controller sends nothing for its patience",
          "[hot_path]") {
  HotPathConfig config;
  config.reader_patience = 20ms;
  Rig rig(config);
  Client first(rig.server.endpoint(), ClientOptions{2000ms});
  first.send(SensorRequestMessage{});
  bool second_answered = false;
  std::thread second_reader([&] {
    Client second(rig.server.endpoint(), ClientOptions{2000ms});
    second.send(SensorRequestMessage{});
    // Answered long before the run ends (at 3 s), whatever the order the two reads are taken in.
    try {
      second_answered = second.receive_frame(1500ms).size() > 0;
    } catch (const TimeoutError&) {
      second_answered = false;
    }
  });
  const HotPathOutcome outcome = rig.run(3000ms);
  second_reader.join();
  CHECK(second_answered);
  CHECK(first.receive_frame(2000ms).size() > 0);
  CHECK(outcome.reads == 2);
}

TEST_CASE("the hot path hands back a Control of more steps than its limit", "[hot_path]") {
  HotPathConfig config;
  config.max_steps = 5;
  Rig rig(config);
  rig.controller.send(arm_control(0.5, 0.5, 6));
  const HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  CHECK(rig.clock.steps() == 0);
}

TEST_CASE("the hot path hands back a Control that does not match the handshake", "[hot_path]") {
  Rig rig;
  rig.controller.send(ControlMessage::builder().object("arm").values({1.0}));
  const HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  CHECK(rig.clock.steps() == 0);
}

TEST_CASE("the hot path hands back a Control with a value its scatter refuses, nothing applied", "[hot_path]") {
  Rig rig({}, 10.0);
  rig.controller.send(arm_control(0.5, -11.0));
  const HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  CHECK(outcome.controls == 0);
  CHECK(rig.state == std::vector<double>{0.0, 0.0, 0.0});
}

TEST_CASE("the hot path steps a Control whose values its scatter takes, up to the limit", "[hot_path]") {
  Rig rig({}, 10.0);
  rig.controller.send(arm_control(0.5, -10.0));
  const HotPathOutcome outcome = rig.run();
  CHECK(outcome.controls == 1);
  CHECK(rig.state[1] == -10.0);
}

TEST_CASE("the hot path counts clamped values and returns at a value's first clamp only", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(2.0, 0.0));
  const HotPathOutcome first = rig.run(2000ms);  // returns at once: the caller warns
  CHECK(first.clamped == 1);
  CHECK(first.first_clamped == std::vector<std::size_t>{0});
  (void)rig.controller.receive_frame(2000ms);

  rig.controller.send(arm_control(-3.0, 0.0));
  const HotPathOutcome again = rig.run();
  CHECK(again.clamped == 1);
  CHECK(again.first_clamped.empty());
}

TEST_CASE("the hot path returns after a Control that stepped to stop_after", "[hot_path]") {
  HotPathConfig config;
  config.stop_after = 0.02;
  Rig rig(config);
  rig.controller.send(arm_control(0.0, 0.0, 2));
  const HotPathOutcome outcome = rig.run(2000ms);
  CHECK(outcome.controls == 1);
  CHECK_FALSE(outcome.request);
}

TEST_CASE("the hot path answers a failing simulation with InternalError and reports it", "[hot_path]") {
  Rig rig;
  test::FailingStepper failing;
  rig.stepper = &failing;
  rig.make({});
  rig.controller.send(arm_control(0.0, 0.0));
  const HotPathOutcome outcome = rig.run(2000ms);
  CHECK(outcome.failure == "the physics diverged");
  const Message answer = rig.controller.receive(2000ms);
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  CHECK(std::get<ErrorMessage>(answer).code == static_cast<int>(ErrorCode::InternalError));
  CHECK(std::get<ErrorMessage>(answer).text == "internal error: the physics diverged");
}

TEST_CASE("the hot path returns with nothing done when no request comes", "[hot_path]") {
  Rig rig;
  const HotPathOutcome outcome = rig.run(20ms);
  CHECK_FALSE(outcome.request);
  CHECK(outcome.controls == 0);
  CHECK_FALSE(outcome.simulated_time);
}

TEST_CASE("counted steps keep the time as the product of steps and time step", "[hot_path]") {
  CountedSteps clock(0.001);
  for (int i = 0; i < 7; ++i) clock.step(1);
  CHECK(clock.time() == 7 * 0.001);
  clock.reset();
  CHECK(clock.time() == 0.0);
  CHECK_THROWS_AS(CountedSteps(0.0), Error);
}

TEST_CASE("the hot path applies and steps a Control sent with a deprecated value list, read by the full decoder",
          "[hot_path]") {
  Rig rig;
  rig.controller.send(ControlMessage::builder().object("arm").values({0.5, -0.25}, ControlField::Angles).steps(2));
  const HotPathOutcome outcome = rig.run();
  CHECK_FALSE(outcome.request);
  CHECK(outcome.controls == 1);
  CHECK(rig.clock.steps() == 2);
  CHECK(rig.state[0] == 0.5);
  CHECK(rig.state[1] == -0.25);
  CHECK(std::holds_alternative<SensorMessage>(rig.controller.receive(2000ms)));
}

TEST_CASE("the hot path applies and steps a Control frame with a field it does not know, as the decoder reads it",
          "[hot_path]") {
  Rig rig;
  rig.controller.send_frame(encode(arm_control(0.5, 0.5)) + "\x18\x05");
  const HotPathOutcome outcome = rig.run();
  CHECK_FALSE(outcome.request);
  CHECK(outcome.controls == 1);
  CHECK(rig.clock.steps() == 1);
  CHECK(rig.state[1] == 0.5);
}

TEST_CASE("the hot path hands back, unapplied, a Control of another encoding that does not match the handshake",
          "[hot_path]") {
  Rig rig;
  // Three values for an object of two controls, sent out of the plain encoding: the caller's to refuse.
  rig.controller.send(ControlMessage::builder().object("arm").values({0.5, 0.5, 0.5}, ControlField::Angles));
  const HotPathOutcome outcome = rig.run();
  REQUIRE(outcome.request);
  CHECK(outcome.request->type() == MessageType::Control);
  CHECK(rig.clock.steps() == 0);
  CHECK(rig.state[0] == 0.0);
}

TEST_CASE("the hot path publishes each Control it answers, the state after its step and the answer, in order",
          "[hot_path]") {
  Rig rig;
  FramePublisher publisher({"{}"});
  zmq::context_t context;
  zmq::socket_t subscriber = subscribed(context, publisher, "/coupler/", 5000);
  REQUIRE(publisher.wait_for_subscribers(1, 10s));
  MujocoStateArrays arrays;
  arrays.qpos = {rig.state.data(), rig.state.size()};
  rig.path->publish_to(publisher, arrays);

  const std::string control = encode(arm_control(0.5, -0.25, 3));
  rig.controller.send_frame(control);
  (void)rig.path->run(rig.server, rig.peer, 50ms, 10);
  const std::string answer = rig.controller.receive_frame(2000ms);

  std::string state;
  encode_mujoco_state(0.03, 13, arrays, state);
  const std::pair<std::string, std::string> expected[] = {
      {"/coupler/requests/Control", control}, {"/coupler/mujoco_state", state}, {"/coupler/answers/Sensor", answer}};
  zmq::message_t message;
  do {  // the scene, sent as it subscribed
    REQUIRE(subscriber.recv(message));
  } while (message.more());
  for (const auto& [topic, payload] : expected) {
    REQUIRE(subscriber.recv(message));
    const std::string text = message.to_string();
    CHECK(text.substr(0, text.find('\0')) == topic);
    CHECK(text.substr(topic.size() + 1 + FramePublisher::kHeaderBytes) == payload);
  }
}

TEST_CASE("paced, the hot path holds an answer until the time it stepped to is due on the wall clock", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 3));
  const auto started = std::chrono::steady_clock::now();
  RunClock clock = test::zero_due_in(0.0);
  const HotPathOutcome outcome = rig.path->run(rig.server, rig.peer, 50ms, 0, HotPathPacing{&clock, 0.01});
  (void)rig.controller.receive_frame(2000ms);
  CHECK(std::chrono::steady_clock::now() - started >= 30ms);  // 3 steps of 10 ms
  CHECK(outcome.controls == 1);
  CHECK(outcome.deadlines_missed == 0);
  CHECK(clock.deadlines_missed() == 0);
}

TEST_CASE("paced, the hot path counts a Control answered past its slot as a missed deadline", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 3));
  // Simulated time 0 was due a second ago: the step to 0.03 s is far past its slot.
  RunClock clock = test::zero_due_in(-1.0);
  const HotPathOutcome outcome = rig.path->run(rig.server, rig.peer, 50ms, 0, HotPathPacing{&clock, 0.01});
  (void)rig.controller.receive_frame(2000ms);
  CHECK(outcome.controls == 1);
  CHECK(outcome.deadlines_missed == 1);
  CHECK(clock.deadlines_missed() == 1);  // counted on the caller's clock
}

TEST_CASE("a paced run needs a clock with a speed", "[hot_path]") {
  Rig rig;
  RunClock unpaced(std::nullopt);
  CHECK_THROWS_WITH(rig.path->run(rig.server, rig.peer, 10ms, 0, HotPathPacing{&unpaced, 0.01}),
                    "a paced run needs a clock with a speed");
  CHECK_THROWS_WITH(rig.path->run(rig.server, rig.peer, 10ms, 0, HotPathPacing{nullptr, 0.01}),
                    "a paced run needs a clock with a speed");
}

TEST_CASE("paced, the hot path returns with a long hold's answer held, serves a reader, then sends it when due",
          "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 5));  // due 50 ms from now
  const auto started = std::chrono::steady_clock::now();
  RunClock clock = test::zero_due_in(0.0);
  const HotPathPacing pacing{&clock, 0.01, 0.01};
  const HotPathOutcome taken = rig.path->run(rig.server, rig.peer, 20ms, 0, pacing);
  CHECK(taken.answer_held);
  CHECK(taken.controls == 1);
  CHECK_FALSE(taken.simulated_time);  // stepped, not answered
  CHECK_FALSE(rig.controller.wait(0ms));

  Client reader(rig.server.endpoint(), ClientOptions{2000ms});
  reader.send(SensorRequestMessage{});
  const HotPathOutcome answered = rig.path->run(rig.server, rig.peer, 60ms, 0, pacing);
  const std::string read = reader.receive_frame(2000ms);
  const std::string answer = rig.controller.receive_frame(2000ms);
  CHECK(std::chrono::steady_clock::now() - started >= 50ms);
  CHECK(read == answer);  // the state the held answer reports
  CHECK(answered.reads == 1);
  CHECK_FALSE(answered.answer_held);
  REQUIRE(answered.simulated_time);
  CHECK(*answered.simulated_time == Approx(0.05));
  CHECK(answered.deadlines_missed == 0);
}

TEST_CASE("the hot path sends a held answer at once when asked to, once", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 50));  // due half a second from now
  RunClock clock = test::zero_due_in(0.0);
  REQUIRE(rig.path->run(rig.server, rig.peer, 10ms, 0, HotPathPacing{&clock, 0.01, 0.01}).answer_held);
  CHECK(rig.path->send_held(rig.server));
  CHECK(rig.controller.wait(100ms));
  CHECK_FALSE(rig.path->send_held(rig.server));
}

TEST_CASE("paced, an answer the caller made for a Control handed back is held until due, a reader served meanwhile",
          "[hot_path]") {
  Rig rig;
  ControlMessage control = arm_control(0.5, -0.25, 5);  // due 50 ms from now
  control.images = {ImageRequest{"eye", {"rgb"}}};
  rig.controller.send(control);
  const auto started = std::chrono::steady_clock::now();
  RunClock clock = test::zero_due_in(0.0);
  const HotPathPacing pacing{&clock, 0.01, 0.01};
  HotPathOutcome handed = rig.path->run(rig.server, rig.peer, 2000ms, 0, pacing);
  REQUIRE(handed.request);
  const HotPathOutcome stepped = rig.path->step_checked(rig.controls.read(control, rig.targets()));
  const std::string made = stepped.answer_frame + "images";  // the caller's answer, its images rendered
  rig.path->hold(std::move(*handed.request), made, *stepped.simulated_time);
  CHECK_FALSE(rig.controller.wait(0ms));

  Client reader(rig.server.endpoint(), ClientOptions{2000ms});
  reader.send(SensorRequestMessage{});
  const HotPathOutcome answered = rig.path->run(rig.server, rig.peer, 80ms, 0, pacing);
  const std::string read = reader.receive_frame(2000ms);
  CHECK(rig.controller.receive_frame(2000ms) == made);
  CHECK(std::chrono::steady_clock::now() - started >= 50ms);
  CHECK(read == stepped.answer_frame);  // the state the held answer reports
  CHECK(answered.reads == 1);
  CHECK_FALSE(answered.answer_held);
  REQUIRE(answered.simulated_time);
  CHECK(*answered.simulated_time == Approx(0.05));
}

TEST_CASE("the hot path holds one answer at a time, and none to a request through the shared channel", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 50));  // due half a second from now
  RunClock clock = test::zero_due_in(0.0);
  REQUIRE(rig.path->run(rig.server, rig.peer, 10ms, 0, HotPathPacing{&clock, 0.01, 0.01}).answer_held);
  Request again = Request::from_channel(rig.peer, SensorRequestMessage{}, encode(SensorRequestMessage{}));
  CHECK_THROWS_WITH(rig.path->hold(again, "answer", 1.0),
                    "an answer is held, or a Control of many steps is in progress: no other answer can be held");
  CHECK(rig.path->send_held(rig.server));
  CHECK_THROWS_WITH(rig.path->hold(again, "answer", 1.0), "an answer through the shared channel cannot be held");
}

TEST_CASE("paced and starting, the hot path anchors the clock at its first Control, holding it for its own steps",
          "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 3));
  const auto started = std::chrono::steady_clock::now();
  // The caller's clock is stale (simulated time 0 due a second ago): the Control that starts the run restarts it.
  RunClock clock = test::zero_due_in(-1.0);
  const HotPathOutcome outcome =
      rig.path->run(rig.server, rig.peer, 50ms, 0, HotPathPacing{&clock, 0.01}, /*starting=*/true);
  (void)rig.controller.receive_frame(2000ms);
  CHECK(std::chrono::steady_clock::now() - started >= 30ms);  // 3 steps of 10 ms
  CHECK(outcome.started);
  CHECK(clock.due_at(0.0) >= started);  // anchored at the time it stepped from, when it was taken
  CHECK(clock.due_at(0.0) <= started + 20ms);
  CHECK(outcome.deadlines_missed == 0);
}

TEST_CASE("the hot path reports a run started by a Control only when the run waited for one", "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25));
  CHECK_FALSE(rig.path->run(rig.server, rig.peer, 20ms).started);
  (void)rig.controller.receive_frame(2000ms);
  rig.controller.send(arm_control(0.5, -0.25));
  const HotPathOutcome outcome = rig.path->run(rig.server, rig.peer, 20ms, 0, std::nullopt, /*starting=*/true);
  (void)rig.controller.receive_frame(2000ms);
  CHECK(outcome.started);
}

TEST_CASE("traced, the hot path returns after each Control with its frames and hands reads back", "[hot_path]") {
  HotPathConfig config;
  config.trace = true;
  Rig rig(config);
  const std::string first = encode(arm_control(0.5, -0.25));
  rig.controller.send(arm_control(0.5, -0.25));
  const auto started = std::chrono::steady_clock::now();
  HotPathOutcome outcome = rig.run(2000ms);
  CHECK(std::chrono::steady_clock::now() - started < 1000ms);  // at the Control, not at the end of its time
  const std::string answer = rig.controller.receive_frame(2000ms);
  CHECK(outcome.controls == 1);
  CHECK(outcome.request_frame == first);
  CHECK(outcome.answer_frame == answer);

  rig.controller.send(SensorRequestMessage{});
  outcome = rig.run(1000ms);
  REQUIRE(outcome.request);
  CHECK(outcome.request->type() == MessageType::SensorRequest);
  CHECK(outcome.reads == 0);
}

TEST_CASE("with a publisher the hot path answers reads and publishes each, then its answer without a simulated time",
          "[hot_path]") {
  Rig rig;
  FramePublisher publisher({"{}"});
  zmq::context_t context;
  zmq::socket_t subscriber = subscribed(context, publisher, "/coupler/", 5000);
  REQUIRE(publisher.wait_for_subscribers(1, 10s));
  rig.path->publish_to(publisher, std::nullopt);
  Client reader(rig.server.endpoint(), ClientOptions{2000ms});
  const std::string read = encode(SensorRequestMessage{});

  reader.send_frame(read);
  HotPathOutcome outcome = rig.run();
  CHECK_FALSE(outcome.request);
  const std::string answer = reader.receive_frame(2000ms);
  rig.controller.send_frame(read);  // the controller's own read
  outcome = rig.run();
  CHECK_FALSE(outcome.request);
  CHECK(outcome.reads == 1);
  CHECK(rig.controller.receive_frame(2000ms) == answer);

  zmq::message_t message;
  do {  // the scene, sent as it subscribed
    REQUIRE(subscriber.recv(message));
  } while (message.more());
  for (int i = 0; i < 2; ++i) {
    for (const auto& [topic, payload] : {std::pair<std::string, std::string>{"/coupler/requests/SensorRequest", read},
                                         std::pair<std::string, std::string>{"/coupler/answers/Sensor", answer}}) {
      REQUIRE(subscriber.recv(message));
      const std::string text = message.to_string();
      REQUIRE(text.substr(0, text.find('\0')) == topic);
      std::int64_t simulated = 0;
      std::memcpy(&simulated, text.data() + topic.size() + 1 + 24, sizeof simulated);
      CHECK(simulated == FramePublisher::kNoTime);
      CHECK(text.substr(topic.size() + 1 + FramePublisher::kHeaderBytes) == payload);
    }
  }
}

TEST_CASE("the hot path hands what it publishes to the publisher while it waits, not only when it returns",
          "[hot_path]") {
  Rig rig;
  FramePublisher publisher({"{}"});
  zmq::context_t context;
  zmq::socket_t subscriber = subscribed(context, publisher, "/coupler/answers/", 1000);
  REQUIRE(publisher.wait_for_subscribers(1, 10s));
  rig.path->publish_to(publisher, std::nullopt);

  rig.controller.send(arm_control(0.5, -0.25));
  std::atomic<bool> returned{false};
  std::thread serving([&] {
    (void)rig.path->run(rig.server, rig.peer, 3000ms);
    returned = true;
  });
  (void)rig.controller.receive_frame(2000ms);
  zmq::message_t message;
  const bool received = static_cast<bool>(subscriber.recv(message));
  const bool still_serving = !returned;
  serving.join();
  CHECK(received);
  CHECK(still_serving);
}

TEST_CASE("the hot path takes a Control of many steps in chunks and answers it once with the state after them all",
          "[hot_path]") {
  Rig rig;
  rig.controller.send(arm_control(0.5, -0.25, 250));
  const HotPathOutcome outcome = rig.run(2000ms);
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(rig.controller.receive_frame(2000ms) == rig.sensors.encode(expected, 2.5));
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == 250);
  CHECK(outcome.long_steps == 0);
}

TEST_CASE("the hot path hands back a request it cannot serve between two chunks and goes on with the Control next run",
          "[hot_path]") {
  Rig rig;
  Client other(rig.server.endpoint(), ClientOptions{2000ms});
  rig.controller.send(arm_control(0.5, 0.0, 100000));
  std::this_thread::sleep_for(20ms);
  other.send(arm_control(0.5, 0.5));
  std::this_thread::sleep_for(20ms);
  const HotPathOutcome first = rig.run(2000ms);
  REQUIRE(first.request);
  CHECK(first.request->peer() != rig.peer);
  CHECK(first.long_steps == 100000);
  CHECK(first.long_taken == StepChunks::kFirst);
  CHECK(rig.clock.steps() == StepChunks::kFirst);

  const HotPathOutcome next = rig.run(2000ms);
  CHECK(next.long_steps == 0);
  CHECK(rig.clock.steps() == 100000);
  const Message answer = rig.controller.receive(2000ms);
  REQUIRE(std::holds_alternative<SensorMessage>(answer));
  CHECK(std::get<SensorMessage>(answer).simulated_time == Approx(1000.0));
}

TEST_CASE("a Control of many steps ended between two chunks is answered SessionEnded with the caller's text",
          "[hot_path]") {
  Rig rig;
  Client other(rig.server.endpoint(), ClientOptions{2000ms});
  rig.controller.send(arm_control(0.5, 0.0, 100000));
  std::this_thread::sleep_for(20ms);
  other.send(arm_control(0.5, 0.5));
  std::this_thread::sleep_for(20ms);
  REQUIRE(rig.run(2000ms).long_steps == 100000);
  CHECK(rig.path->end_long_control(rig.server, "server stopped"));
  const Message answer = rig.controller.receive(2000ms);
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  CHECK(std::get<ErrorMessage>(answer).code == static_cast<int>(ErrorCode::SessionEnded));
  CHECK(std::get<ErrorMessage>(answer).text == "server stopped");
  CHECK_FALSE(rig.path->end_long_control(rig.server, "server stopped"));
}

namespace {

// Steps of 0.5 ms of simulated time that take 0.5 ms of wall time each.
class WallPacedSteps final : public Stepper {
 public:
  void step(std::uint64_t steps) override {
    std::this_thread::sleep_for(std::chrono::microseconds(500 * steps));
    steps_ += steps;
  }
  double time() const override { return static_cast<double>(steps_) * 0.0005; }

 private:
  std::uint64_t steps_ = 0;
};

}  // namespace

TEST_CASE("paced, a Control of many steps that starts the run is answered its steps' time after its last step",
          "[hot_path]") {
  Rig rig;
  WallPacedSteps slow;
  rig.stepper = &slow;
  rig.make({});
  rig.controller.send(arm_control(0.5, -0.25, 120));  // 60 ms of stepping, then 60 ms of simulated time to wait
  const auto sent = std::chrono::steady_clock::now();
  RunClock clock = test::zero_due_in(0.0);
  const HotPathPacing pacing{&clock, 0.01, 0.01};
  std::chrono::steady_clock::time_point answered{};
  std::thread controller([&] {
    (void)rig.controller.receive_frame(2000ms);
    answered = std::chrono::steady_clock::now();
  });
  const HotPathOutcome outcome = rig.path->run(rig.server, rig.peer, 200ms, 0, pacing, true);
  controller.join();
  CHECK(outcome.started);
  CHECK(clock.due_at(0.0) - sent >= 50ms);  // anchored at the time it stepped from, once its steps were taken
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == 120);
  CHECK_FALSE(outcome.answer_held);
  REQUIRE(outcome.simulated_time);
  CHECK(*outcome.simulated_time == Approx(0.06));
  CHECK(answered - sent >= 115ms);
}

TEST_CASE("the hot path takes a Control its caller checked at once, however many its steps", "[hot_path]") {
  Rig rig;
  const std::uint64_t steps = StepChunks::kFirst + 50;
  const std::uint32_t read = rig.controls.read(arm_control(0.5, -11.0, steps), rig.targets());
  const HotPathOutcome outcome = rig.path->step_checked(read);
  const double expected[] = {0.5, -11.0, 1.0};
  CHECK(outcome.answer_frame == rig.sensors.encode(expected, static_cast<double>(steps) * 0.01));
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == steps);
  CHECK(rig.clock.steps() == steps);
  CHECK(outcome.long_steps == 0);
}

TEST_CASE("the hot path answers a checked Control of no steps with the state its controls leave", "[hot_path]") {
  Rig rig;
  (void)rig.controls.read(arm_control(0.5, -0.25), rig.targets());
  const HotPathOutcome outcome = rig.path->step_checked(0);
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(outcome.answer_frame == rig.sensors.encode(expected, 0.0));
  CHECK(outcome.controls == 1);
  CHECK(outcome.steps == 0);
  CHECK(rig.clock.steps() == 0);
}

TEST_CASE("the hot path applies a checked Control without a step, for its round to step", "[hot_path]") {
  Rig rig;
  (void)rig.controls.read(arm_control(0.5, -0.25), rig.targets());
  const HotPathOutcome applied = rig.path->apply_checked();
  CHECK(applied.controls == 1);
  CHECK(applied.steps == 0);
  CHECK(applied.failure.empty());
  CHECK(applied.answer_frame.empty());
  CHECK(rig.clock.steps() == 0);
  const HotPathOutcome stepped = rig.path->step_applied(3);
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(stepped.answer_frame == rig.sensors.encode(expected, 0.03));
  CHECK(stepped.controls == 0);
  CHECK(stepped.steps == 3);
  REQUIRE(stepped.simulated_time);
  CHECK(*stepped.simulated_time == 0.03);
  CHECK(rig.clock.steps() == 3);
}

TEST_CASE("the hot path steps the controls applied without applying the control arrays again", "[hot_path]") {
  Rig rig;
  const ControlTargets targets = rig.targets();
  (void)rig.controls.read(arm_control(0.5, -0.25), targets);
  REQUIRE(rig.path->apply_checked().controls == 1);
  (void)rig.controls.read(arm_control(0.75, 0.125), targets);  // read, never applied
  const HotPathOutcome stepped = rig.path->step_applied(1);
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(stepped.answer_frame == rig.sensors.encode(expected, 0.01));
}

TEST_CASE("the hot path answers a round whose step fails with InternalError", "[hot_path]") {
  Rig rig;
  test::FailingStepper failing;
  rig.stepper = &failing;
  rig.make({});
  const HotPathOutcome applied = rig.path->apply_checked();
  CHECK(applied.failure.empty());  // applying takes no step
  const HotPathOutcome stepped = rig.path->step_applied(1);
  CHECK(stepped.failure == "the physics diverged");
  CHECK(stepped.error_answers == 1);
  const Message answer = decode(stepped.answer_frame);
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  CHECK(std::get<ErrorMessage>(answer).text == "internal error: the physics diverged");
}

TEST_CASE("the hot path takes a round of many steps applied without applying it again, in its next run",
          "[hot_path]") {
  Rig rig;
  const ControlTargets targets = rig.targets();
  (void)rig.controls.read(arm_control(0.5, -0.25), targets);
  REQUIRE(rig.path->apply_checked().controls == 1);
  (void)rig.controls.read(arm_control(0.75, 0.125), targets);  // read, never applied
  CHECK(rig.path->start_applied_chunks(StepChunks::kFirst).long_steps == 0);  // too few steps for chunks
  const HotPathOutcome started = rig.path->start_applied_chunks(250);
  CHECK(started.controls == 0);
  CHECK(started.long_steps == 250);
  CHECK(rig.clock.steps() == 0);
  CHECK_THROWS_AS(rig.path->apply_checked(), Error);  // one Control at a time
  const HotPathOutcome outcome = rig.run(2000ms);
  CHECK(outcome.long_done);
  CHECK(outcome.steps == 250);
  CHECK(rig.clock.steps() == 250);
  const double expected[] = {0.5, -0.25, 1.0};
  CHECK(std::equal(expected, expected + 3, rig.readings.begin()));
}
