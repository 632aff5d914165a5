// Session, Controls and SensorReadings: a controller's view of a scene.

#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/controller/session.hpp>

#include "answering_server.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

HandshakeMessage arm_scene() {
  HandshakeMessage handshake;
  handshake.time_step = 0.002;
  ObjectDescription& arm = handshake.objects["arm"];
  arm.controls = {"shoulder", "elbow"};
  arm.control_types = {ValueType::Angle, ValueType::Angle};
  arm.joint_sensors = {"shoulder", "elbow"};
  arm.joint_sensor_types = {ValueType::Angle};
  arm.control_events = {{"gripper", ValueType::Activated}};
  arm.sensors = {{"wrist_ft", {ValueType::Force3D, ValueType::Torque3D}}};
  handshake.objects["box"].object_sensors = {ValueType::Position};
  return handshake;
}

// The arm scene whose controls name the joints they drive: a hinge held at an
// angle and a slide held at a length.
HandshakeMessage held_arm_scene() {
  HandshakeMessage handshake = arm_scene();
  ObjectDescription& arm = handshake.objects["arm"];
  arm.control_types = {ValueType::Angle, ValueType::LinearPosition};
  arm.control_targets = {"shoulder", "elbow"};
  return handshake;
}

constexpr double kQuarterTurn = 1.5707963267948966;

// The arm scene with a mocap box, whose pose is its controls.
HandshakeMessage mocap_scene() {
  HandshakeMessage handshake = arm_scene();
  ObjectDescription& box = handshake.objects["box"];
  box.controls = {"x", "y", "z", "qw", "qx", "qy", "qz"};
  box.control_types = {ValueType::MocapPosition,   ValueType::MocapPosition,   ValueType::MocapPosition,
                       ValueType::MocapQuaternion, ValueType::MocapQuaternion, ValueType::MocapQuaternion,
                       ValueType::MocapQuaternion};
  box.control_targets = std::vector<std::string>(7, "box");
  box.object_sensors = {ValueType::Position, ValueType::RPY};
  return handshake;
}

// A coupler server's ServerInfo, every extension announced.
ServerInfo coupler_server() { return ServerInfo{"coupler", "test", {kExtensionSteps, kExtensionGoodbye, kExtensionRanges}}; }

// A server that echoes commanded angles back as sensed angles and
// answers the nth control with Reset, as a simulation reset from its side.
// With `extra_object`, its readings also carry an object the handshake does
// not describe, as a server of another version might. `info` is what its
// handshake says about the server: nullopt answers as a Click server does.
class EchoServer : public test::AnsweringServer {
 public:
  explicit EchoServer(int reset_on_control = -1, bool extra_object = false,
                      std::optional<ServerInfo> info = coupler_server(), HandshakeMessage scene = arm_scene())
      : AnsweringServer(answer(reset_on_control, extra_object, std::move(info), std::move(scene))) {}

 private:
  static Answer answer(int reset_on_control, bool extra_object, std::optional<ServerInfo> info,
                       HandshakeMessage handshake) {
    handshake.server = std::move(info);
    SensorMessage state;
    state.objects["arm"].angles = {0.0, 0.0};
    state.objects["arm"].sensors["wrist_ft"] = {{ValueType::Force3D, {0, 0, -5}}, {ValueType::Torque3D, {0, 0, 0}}};
    state.objects["box"].object_sensors = {{ValueType::Position, {0.5, 0.1, 0.8}}};
    if (handshake.objects["box"].object_sensors.size() > 1) {
      state.objects["box"].object_sensors.push_back({ValueType::RPY, {0.0, 0.0, kQuarterTurn}});
    }
    if (extra_object) state.objects["conveyor"].angles = {1.5};
    return [=, controls = 0](Server& server, const Request& request) mutable {
      std::visit(
          [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, HandshakeInitMessage>) {
              server.reply(request, handshake);
            } else if constexpr (std::is_same_v<T, ControlMessage>) {
              if (controls++ == reset_on_control) {
                server.reply(request, ResetMessage{});
                return;
              }
              state.objects["arm"].angles = m.objects.at("arm").values;
              state.simulated_time += handshake.time_step;
              server.reply(request, state);
            } else if constexpr (std::is_same_v<T, SensorRequestMessage>) {
              server.reply(request, state);
            } else if constexpr (std::is_same_v<T, ResetMessage>) {
              server.reply(request, ResetMessage{});
            } else if constexpr (std::is_same_v<T, SensorMessage>) {
              server.reply(request, ErrorMessage{static_cast<int>(ErrorCode::UnexpectedMessage), "not to servers"});
            }
          },
          request.message());
    };
  }
};

}  // namespace

TEST_CASE("a session starts with the handshake") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK(session.handshake().time_step == 0.002);
  CHECK(session.handshake().object("arm").controls.size() == 2);
}

TEST_CASE("controls start at zero with events off and are set by name") {
  Controls controls(arm_scene());
  CHECK(controls.values("arm") == std::vector<double>{0.0, 0.0});
  CHECK_FALSE(controls.message().objects.at("arm").events.at("gripper"));
  controls.set("arm", "elbow", 0.7);
  controls.event("arm", "gripper", true);
  CHECK(controls.get("arm", "elbow") == 0.7);
  CHECK(controls.values("arm")[1] == 0.7);
  CHECK(controls.message().objects.at("arm").events.at("gripper"));
  CHECK(controls.message().objects.count("box") == 0);  // box has nothing to control
}

TEST_CASE("a control, event or object that does not exist is refused listing the valid names") {
  Controls controls(arm_scene());
  CHECK_THROWS_WITH(controls.set("arm", "elbw", 0.1),
                    "object 'arm' has no control named 'elbw'; valid names: 'shoulder', 'elbow'");
  CHECK_THROWS_WITH(controls.event("arm", "grip", true),
                    "object 'arm' has no control event named 'grip'; valid names: 'gripper'");
  CHECK_THROWS_WITH(controls.values("box"), "no controllable object named 'box'; valid names: 'arm'");
}

TEST_CASE("session controls start position controls at their joints' current positions") {
  EchoServer server(-1, false, coupler_server(), held_arm_scene());
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls moved = session.controls();
  moved.set("arm", "shoulder", 0.7);
  moved.set("arm", "elbow", 0.02);
  session.step(moved);  // the echo server now senses these positions
  CHECK(session.controls().values("arm") == std::vector<double>{0.7, 0.02});
}

TEST_CASE("session controls without control targets start at zero and ask the server nothing") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls moved = session.controls();
  moved.set("arm", "shoulder", 0.7);
  session.step(moved);
  CHECK(session.controls().values("arm") == std::vector<double>{0.0, 0.0});
  CHECK(server.stop().size() == 2);  // the handshake and the Control
}

TEST_CASE("controls reject names the scene does not have") {
  Controls controls(arm_scene());
  CHECK_THROWS_WITH(controls.set("arm", "wrist", 1.0), Catch::Contains("no control named 'wrist'"));
  CHECK_THROWS_WITH(controls.set("robot9", "elbow", 1.0), Catch::Contains("'robot9'"));
  CHECK_THROWS_WITH(controls.event("arm", "vacuum", true), Catch::Contains("'vacuum'"));
}

TEST_CASE("step sends the controls and returns readings addressed by name") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls controls = session.controls();
  controls.set("arm", "shoulder", 0.25);
  const SensorReadings readings = session.step(controls);
  CHECK(readings.time() == Approx(0.002));
  CHECK(readings.angle("arm", "shoulder") == 0.25);
  CHECK(readings.sensor("arm", "wrist_ft", ValueType::Force3D) == std::vector<double>{0, 0, -5});
  CHECK(readings.object_sensor("box", ValueType::Position)[0] == 0.5);
  CHECK_THROWS_WITH(readings.angle("arm", "wrist"), Catch::Contains("no joint sensor named 'wrist'"));
  CHECK_THROWS_WITH(readings.object_sensor("box", ValueType::RPY), Catch::Contains("no RPY reading"));
}

TEST_CASE("a step from an encoded Control reads the answer as step does, and through the layout") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls controls = session.controls();
  controls.set("arm", "shoulder", 0.25);
  const SensorReadings readings = session.step_frame(encode(Message(controls.message())), 0);
  CHECK(readings.angle("arm", "shoulder") == 0.25);
  CHECK(readings.values().size() > 0);
  CHECK(readings.time() == Approx(0.002));
}

TEST_CASE("a closed session refuses every request until it reconnects") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  session.close();
  CHECK_THROWS_WITH(session.sensors(), Catch::Contains("is closed"));
  CHECK_THROWS_WITH(session.client().send(SensorRequestMessage{}), Catch::Contains("is closed"));
  session.reconnect();
  CHECK(session.sensors().angle("arm", "shoulder") == 0.0);
}

TEST_CASE("step readings hold every number of the server's answer") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls controls = session.controls();
  controls.set("arm", "elbow", -1.25);
  const SensorMessage message = session.step(controls).message();
  CHECK(message.simulated_time == Approx(0.002));
  CHECK(message.objects.at("arm").angles == std::vector<double>{0.0, -1.25});
  CHECK(message.objects.at("arm").sensors.at("wrist_ft").size() == 2);
  CHECK(message.objects.at("box").object_sensors.at(0).value == std::vector<double>{0.5, 0.1, 0.8});
}

TEST_CASE("step readings of a shape other than the handshake's are read whole") {
  EchoServer server(/*reset_on_control=*/-1, /*extra_object=*/true);
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls controls = session.controls();
  controls.set("arm", "shoulder", 0.5);
  const SensorReadings readings = session.step(controls);
  CHECK(readings.angle("arm", "shoulder") == 0.5);
  CHECK(readings.angles("conveyor") == std::vector<double>{1.5});
}

TEST_CASE("a polling step without a trace reads the same readings") {
  EchoServer server;
  SessionOptions options{ClientOptions{2000ms}};
  options.polling = true;
  Session session(server.endpoint(), options);
  Controls controls = session.controls();
  controls.set("arm", "elbow", 0.75);
  const SensorReadings readings = session.step(controls);
  CHECK(readings.angle("arm", "elbow") == 0.75);
  CHECK(readings.time() == Approx(0.002));
}

TEST_CASE("a Reset answer to a step is reported and followed by the current state") {
  EchoServer server(/*reset_on_control=*/0);
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  const SensorReadings readings = session.step(session.controls());
  CHECK(readings.after_reset());
  CHECK(readings.time() == 0.0);
}

TEST_CASE("closing a session tells a server that announced goodbye that the controller is leaving") {
  EchoServer server;
  {
    Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
    session.sensors();
  }
  std::this_thread::sleep_for(100ms);  // the goodbye has no answer to wait for
  const std::vector<Message> received = server.stop();
  REQUIRE(received.size() == 3);
  const auto* goodbye = std::get_if<ErrorMessage>(&received.back());
  REQUIRE(goodbye);
  CHECK(goodbye->code == static_cast<int>(ErrorCode::SessionEnded));
}

TEST_CASE("closing a session sends no goodbye to a server that did not announce it") {
  EchoServer server(-1, false, std::nullopt);
  {
    Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
    session.sensors();
  }
  std::this_thread::sleep_for(100ms);
  const std::vector<Message> received = server.stop();
  REQUIRE(received.size() == 2);
  CHECK(std::holds_alternative<SensorRequestMessage>(received.back()));
}

TEST_CASE("more than one step per Control to a server without the steps extension throws and sends nothing") {
  EchoServer server(-1, false, std::nullopt);
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls controls = session.controls();
  controls.steps(10);
  CHECK_THROWS_AS(session.step(controls), ExtensionNotSupportedError);
  controls.steps(1);
  CHECK(session.step(controls).time() == 0.002);
  session.close();
  const std::vector<Message> received = server.stop();
  CHECK(received.size() == 2);  // the handshake and the one-step Control
}

TEST_CASE("more than one step per Control goes to a server that announced the steps extension") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  Controls controls = session.controls();
  controls.steps(10);
  session.step(controls);
  session.close();
  std::this_thread::sleep_for(100ms);
  const std::vector<Message> received = server.stop();
  REQUIRE(received.size() == 3);
  CHECK(std::get<ControlMessage>(received[1]).steps == 10);
}

TEST_CASE("a session to a server that never answers times out") {
  Server silent(fresh_address("inproc"));
  CHECK_THROWS_AS(Session(silent.endpoint(), SessionOptions{ClientOptions{100ms, 0ms}}), TimeoutError);
}

TEST_CASE("a polling session gets the same answers and counts its round trips") {
  EchoServer server;
  SessionOptions options{ClientOptions{2000ms}};
  options.polling = true;
  std::vector<std::string> trace;
  options.trace = [&](std::string_view direction, const Message& m) {
    trace.push_back(std::string(direction) + " " + std::string(to_string(type_of(m))));
  };
  Session session(server.endpoint(), options);
  session.stats().clear();
  Controls controls = session.controls();
  controls.set("arm", "elbow", -0.3);
  CHECK(session.step(controls).angle("arm", "elbow") == -0.3);
  CHECK(session.stats().count() == 1);
  CHECK(session.stats().percentile(0.5) > 0.0);
  CHECK(trace == std::vector<std::string>{"send HandshakeInit", "recv Handshake", "send Control", "recv Sensor"});
}

TEST_CASE("session controls start a mocap body's pose controls at its position and orientation") {
  EchoServer server(-1, false, coupler_server(), mocap_scene());
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  const std::vector<double> pose = session.controls().values("box");
  REQUIRE(pose.size() == 7);
  CHECK(std::vector<double>(pose.begin(), pose.begin() + 3) == std::vector<double>{0.5, 0.1, 0.8});
  const double half = std::sqrt(0.5);  // a quarter turn about z: (cos 45°, 0, 0, sin 45°)
  CHECK(pose[3] == Approx(half).margin(1e-15));
  CHECK(pose[4] == Approx(0.0).margin(1e-15));
  CHECK(pose[5] == Approx(0.0).margin(1e-15));
  CHECK(pose[6] == Approx(half).margin(1e-15));
}

TEST_CASE("a reset to a keyframe asks by name or by index a server that announced the keyframes extension") {
  ServerInfo info = coupler_server();
  info.extensions.push_back(kExtensionKeyframes);
  EchoServer server(-1, false, info);
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  session.reset_to_keyframe("home");
  session.reset_to_keyframe(0u);
  const std::vector<Message> received = server.stop();
  REQUIRE(received.size() == 3);
  CHECK(std::get<ResetMessage>(received[1]).keyframe == "home");
  CHECK_FALSE(std::get<ResetMessage>(received[1]).keyframe_index);
  CHECK(std::get<ResetMessage>(received[2]).keyframe_index == std::optional<std::uint32_t>(0));
}

TEST_CASE("a reset to a given state sends its qpos and qvel, alone or with a keyframe") {
  ServerInfo info = coupler_server();
  info.extensions.push_back(kExtensionKeyframes);
  EchoServer server(-1, false, info);
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  session.reset({0.1, 0.2}, {0.3, 0.4});
  session.reset_to_keyframe("home", {0.5, 0.6});
  const std::vector<Message> received = server.stop();
  REQUIRE(received.size() == 3);
  const auto& state = std::get<ResetMessage>(received[1]);
  CHECK(state.qpos == std::vector<double>{0.1, 0.2});
  CHECK(state.qvel == std::vector<double>{0.3, 0.4});
  CHECK(state.keyframe.empty());
  const auto& keyframe = std::get<ResetMessage>(received[2]);
  CHECK(keyframe.keyframe == "home");
  CHECK(keyframe.qpos == std::vector<double>{0.5, 0.6});
  CHECK(keyframe.qvel.empty());
}

TEST_CASE("a reset to a keyframe on a server without the keyframes extension throws and sends nothing") {
  EchoServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK_THROWS_AS(session.reset_to_keyframe("home"), ExtensionNotSupportedError);
  CHECK(server.stop().size() == 1);  // the handshake
}
