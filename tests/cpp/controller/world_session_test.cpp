// WorldSession (the "worlds" extension): the Control for every world it builds and checks before sending, and
// the answer as views of the decoded frame or of the shared-memory ring, without copies.

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <functional>
#include <utility>

#include <coupler/controller/world_session.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

#include "answering_server.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// Three worlds of one hinge, and a 2x1 camera "eye" that renders rgb and depth.
HandshakeMessage three_worlds() {
  HandshakeMessage handshake = test::pendulum_scene({kExtensionWorlds, kExtensionImages});
  handshake.worlds = 3;
  handshake.cameras = {test::eye_camera({"rgb", "depth"})};
  return handshake;
}

const std::vector<double> kControls{0.1, 0.2, 0.3};  // one torque per world

Span<double> span(const std::vector<double>& values) { return {values.data(), values.size()}; }

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

// Every world's rgb picture (2x1, 6 bytes each) of `worlds`, one after another: world k's bytes all k + 1.
std::string pictures_of(const std::vector<std::uint32_t>& worlds) {
  std::string bytes;
  for (const std::uint32_t world : worlds) bytes += std::string(6, static_cast<char>(world + 1));
  return bytes;
}

SensorMessage answer_for_three_worlds() {
  SensorMessage answer;
  answer.world_sensors = {1.0, 2.0, 3.0};
  answer.world_times = {0.002, 0.004, 0.006};
  answer.world_data = {10, 11, 20, 21, 30, 31};
  answer.image_worlds = {0, 2};
  answer.world_images = {{"eye", "rgb", 2, 1, 0.0, pictures_of({0, 2})}};
  return answer;
}

}  // namespace

TEST_CASE("a Control for every world carries the controls, resets and images asked for") {
  WorldStep step;
  step.steps = 4;
  step.resets = {1};
  step.reset_qpos = {0.5};
  step.images = {{"eye", {"rgb", "depth"}}};
  step.image_worlds = {0, 2};
  const ControlMessage control = world_control(three_worlds(), 1, span(kControls), step, true);
  CHECK(control.worlds == 3);
  CHECK(control.world_controls == kControls);
  CHECK(control.steps == 4);
  CHECK(control.reset_worlds == std::vector<std::uint32_t>{1});
  CHECK(control.reset_qpos == std::vector<double>{0.5});
  CHECK(control.images.at(0).camera == "eye");
  CHECK(control.images.at(0).kinds == std::vector<std::string>{"rgb", "depth"});
  CHECK(control.image_worlds == std::vector<std::uint32_t>{0, 2});
  CHECK(control.shared_memory);
  CHECK(control.objects.empty());
}

TEST_CASE("no controls step no world") {
  const ControlMessage control = world_control(three_worlds(), 1, {}, {}, false);
  CHECK(control.worlds == 3);
  CHECK(control.world_controls.empty());
}

TEST_CASE("controls of another size than worlds times the control width are refused, naming both") {
  const std::vector<double> two{0.1, 0.2};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(two), {}, false); }) ==
        "controls hold 2 numbers; this server's 3 worlds take 3 x 1 = 3, world after world");
}

TEST_CASE("a reset of a world the server does not have is refused, naming its worlds") {
  WorldStep step;
  step.resets = {3};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(kControls), step, false); }) ==
        "resets names world 3: this server has 3 worlds (0 to 2)");
}

TEST_CASE("resets out of ascending order are refused") {
  WorldStep step;
  step.resets = {2, 1};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(kControls), step, false); }) ==
        "resets must list worlds in ascending order, each once; world 1 follows world 2");
}

TEST_CASE("images of a world the server does not have are refused") {
  WorldStep step;
  step.images = {{"eye", {"rgb"}}};
  step.image_worlds = {0, 5};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(kControls), step, false); }) ==
        "image_worlds names world 5: this server has 3 worlds (0 to 2)");
}

TEST_CASE("worlds to render without a camera are refused") {
  WorldStep step;
  step.image_worlds = {1};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(kControls), step, false); }) ==
        "image_worlds names worlds to render, but no camera is asked for");
}

TEST_CASE("an unknown camera is refused, naming the cameras offered") {
  WorldStep step;
  step.images = {{"nose", {"rgb"}}};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(kControls), step, false); }) ==
        "the server offers no camera named 'nose'; it offers eye");
}

TEST_CASE("a kind the camera does not render is refused, naming its kinds") {
  WorldStep step;
  step.images = {{"eye", {"segmentation"}}};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(kControls), step, false); }) ==
        "camera 'eye' renders no 'segmentation' images; it renders rgb, depth");
}

TEST_CASE("a rate is refused: every world's images come with each answer") {
  WorldStep step;
  step.images = {{"eye", {"rgb"}, 10}};
  CHECK(error_of([&] { world_control(three_worlds(), 1, span(kControls), step, false); }) ==
        "camera 'eye' asked for every 10 steps: a Control for every world renders its images with each answer "
        "(give no rate)");
}

TEST_CASE("images of a server without cameras are refused as an extension it did not announce") {
  HandshakeMessage handshake = three_worlds();
  handshake.cameras.clear();
  handshake.server->extensions = {kExtensionWorlds};
  WorldStep step;
  step.images = {{"eye", {"rgb"}}};
  CHECK_THROWS_AS(world_control(handshake, 1, span(kControls), step, false), ExtensionNotSupportedError);
  CHECK(error_of([&] { world_control(handshake, 1, span(kControls), step, false); }) ==
        "images of eye needs the coupler extension 'images', which the server 'coupler' test did not announce");
}

TEST_CASE("the answer's arrays are views of the decoded frame, world by world") {
  const Message decoded = decode(encode(Message(answer_for_three_worlds())));
  const auto& message = std::get<SensorMessage>(decoded);
  const WorldAnswer answer = world_answer(message, 3, 1);
  CHECK(answer.sensors.data == message.world_sensors.data());
  CHECK(answer.sensors_of(2)[0] == 3.0);
  CHECK(answer.times[1] == 0.004);
  CHECK(answer.data_width == 2);
  CHECK(std::vector<double>(answer.data_of(1).begin(), answer.data_of(1).end()) == std::vector<double>{20, 21});
  CHECK_FALSE(answer.shared_memory);
  CHECK_THROWS_AS(answer.sensors_of(3), Error);
}

TEST_CASE("an image stack holds the pictures of the worlds named, in their order") {
  const Message decoded = decode(encode(Message(answer_for_three_worlds())));
  const auto& message = std::get<SensorMessage>(decoded);
  const WorldAnswer answer = world_answer(message, 3, 1);
  const WorldImageStack& rgb = *answer.images.at("eye").rgb;
  CHECK_FALSE(answer.images.at("eye").depth);
  REQUIRE(rgb.worlds.size == 2);
  CHECK(rgb.worlds[1] == 2);
  CHECK(rgb.bytes.data == reinterpret_cast<const std::uint8_t*>(message.world_images.at(0).data.data()));
  const ImageView second = rgb.picture(1);
  CHECK(second.width == 2);
  CHECK(second.height == 1);
  const Span<std::uint8_t> pixels = second.pixels<std::uint8_t>();
  CHECK(std::string(pixels.begin(), pixels.end()) == std::string(6, '\3'));  // world 2's
  CHECK_THROWS_AS(rgb.picture(2), Error);
}

TEST_CASE("an answer of another number of worlds is a protocol error") {
  SensorMessage message = answer_for_three_worlds();
  message.world_times.pop_back();
  CHECK_THROWS_AS(world_answer(message, 3, 1), ProtocolError);
}

TEST_CASE("an image stack whose bytes do not fill its worlds' pictures is a protocol error") {
  SensorMessage message = answer_for_three_worlds();
  message.world_images.at(0).data.pop_back();
  CHECK(error_of([&] { world_answer(message, 3, 1); }) ==
        "the rgb images of camera 'eye' have 11 bytes; 2 of 2x1 take 12");
}

TEST_CASE("arrays in shared memory are views of the mapped ring") {
  SharedRingWriter ring(2, 4096, 0);
  const SharedRingReader reader(ring.announced());
  const double sensors[] = {1.0, 2.0, 3.0};
  const std::string pictures = pictures_of({0, 1, 2});
  const SharedRingWriter::Claim claim = ring.claim();
  std::memcpy(claim.data, sensors, sizeof sensors);
  std::memcpy(claim.data + 64, pictures.data(), pictures.size());
  ring.publish(claim);
  SensorMessage message = answer_for_three_worlds();
  message.world_sensors.clear();
  message.world_sensors_shared = SharedSlice{claim.slot, claim.sequence, 0, sizeof sensors};
  message.image_worlds.clear();
  message.image_worlds = {0, 1, 2};
  message.world_images.at(0).data.clear();
  message.world_images.at(0).shared = SharedSlice{claim.slot, claim.sequence, 64, pictures.size()};
  const WorldAnswer answer = world_answer(message, 3, 1, &reader);
  CHECK(answer.shared_memory);
  CHECK(reinterpret_cast<const std::uint8_t*>(answer.sensors.data) == reader.view(*message.world_sensors_shared));
  CHECK(answer.sensors_of(1)[0] == 2.0);
  const Span<std::uint8_t> world_one = answer.images.at("eye").rgb->picture(1).bytes;
  CHECK(std::string(world_one.begin(), world_one.end()) == std::string(6, '\2'));
  CHECK_THROWS_AS(world_answer(message, 3, 1), ProtocolError);  // no ring mapped
}

namespace {

// A server of `handshake`: it refuses the first Control for every world, and answers every other with each
// world's time.
class WorldServer : public test::AnsweringServer {
 public:
  explicit WorldServer(HandshakeMessage handshake = three_worlds()) : AnsweringServer(answer(std::move(handshake))) {}

 private:
  static Answer answer(HandshakeMessage handshake) {
    return [handshake, controls = 0](Server& server, const Request& request) mutable {
      if (std::holds_alternative<HandshakeInitMessage>(request.message())) {
        server.reply(request, handshake);
      } else if (std::holds_alternative<ControlMessage>(request.message()) && controls++ == 0) {
        server.reply(request, ErrorMessage{static_cast<int>(ErrorCode::ControlMismatch), "refused"});
      } else if (std::holds_alternative<ControlMessage>(request.message())) {
        SensorMessage answer;
        answer.world_sensors = {0.0, 0.0, 0.0};
        answer.world_times = {0.002, 0.002, 0.002};
        server.reply(request, answer);
      }
    };
  }
};

}  // namespace

TEST_CASE("a server without the worlds extension is refused in one line naming it") {
  HandshakeMessage one_world = three_worlds();
  one_world.worlds = 0;
  one_world.server->extensions = {kExtensionImages};
  WorldServer server(one_world);
  CHECK(error_of([&] { WorldSession worlds(server.endpoint(), SessionOptions{ClientOptions{2000ms}}); }) ==
        "a Control for every world needs the coupler extension 'worlds', which the server 'coupler' test did not "
        "announce");
}

TEST_CASE("a Control the server refuses leaves the session usable") {
  WorldServer server;
  WorldSession worlds(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK(worlds.worlds() == 3);
  CHECK(worlds.control_width() == 1);
  CHECK(worlds.sensor_width() == 1);
  CHECK_THROWS_AS(worlds.step(kControls), RemoteError);
  const WorldAnswer& answer = worlds.step(kControls);
  CHECK(answer.times.size == 3);
  CHECK(answer.times[2] == 0.002);
}

TEST_CASE("receive without a Control sent is refused") {
  WorldServer server;
  WorldSession worlds(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK(error_of([&] { worlds.receive(); }) == "no Control for every world was sent: nothing to receive");
}

TEST_CASE("a second Control before the answer to the first is refused") {
  WorldServer server;
  WorldSession worlds(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  worlds.send(kControls);
  CHECK(error_of([&] { worlds.send(kControls); }) ==
        "the answer to the previous Control for every world was not received yet");
}

TEST_CASE("each round trip counts in the session's stats, and the trace sees both messages") {
  WorldServer server;
  std::vector<std::string> traced;
  SessionOptions options{ClientOptions{2000ms}};
  options.trace = [&](std::string_view direction, const Message& message) {
    traced.push_back(std::string(direction) + " " + std::string(to_string(type_of(message))));
  };
  WorldSession worlds(server.endpoint(), options);
  worlds.session().stats().clear();
  traced.clear();
  CHECK_THROWS_AS(worlds.step(kControls), RemoteError);
  worlds.step(kControls);
  CHECK(worlds.session().stats().count() == 2);
  CHECK(traced == std::vector<std::string>{"send Control", "recv Error", "send Control", "recv Sensor"});
}

TEST_CASE("images whose answer would exceed the client's frame limit are refused before sending") {
  HandshakeMessage handshake = three_worlds();
  handshake.cameras.at(0).width = 100;
  handshake.cameras.at(0).height = 100;
  WorldServer server(handshake);
  ClientOptions client{2000ms};
  client.max_frame_bytes = 4096;
  WorldSession worlds(server.endpoint(), SessionOptions{client});
  WorldStep step;
  step.images = {{"eye", {"rgb"}}};
  CHECK(error_of([&] { worlds.send(kControls, step); }) ==
        "the images asked for make an answer of about 90368 bytes, beyond this client's frame limit of 4096 bytes: "
        "open the Session with max_frame_bytes=90368 or more (0: no limit), or ask for fewer worlds or images");
  step.image_worlds = {1};  // one world's picture: 30000 bytes, still too many
  CHECK_THROWS_AS(worlds.send(kControls, step), Error);
  worlds.send(kControls);  // nothing was sent: the session goes on
}

TEST_CASE("a WorldSession drives a session opened elsewhere, which goes on after it") {
  WorldServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  {
    WorldSession worlds(session);
    CHECK(&worlds.session() == &session);
    CHECK(worlds.worlds() == 3);
    CHECK_THROWS_AS(worlds.step(kControls), RemoteError);
    CHECK(worlds.step(kControls).times[0] == 0.002);
  }
  WorldSession again(session);
  CHECK(again.step(kControls).times.size == 3);
}

TEST_CASE("an answer's views stay valid past the next answer while its holds is kept") {
  WorldServer server;
  WorldSession worlds(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK_THROWS_AS(worlds.step(kControls), RemoteError);
  const WorldAnswer first = worlds.step(kControls);
  worlds.step(kControls);
  REQUIRE(first.holds);
  CHECK(first.times.size == 3);
  CHECK(first.times[1] == 0.002);
}
