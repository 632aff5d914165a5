// Session and camera images (the "images" extension): asked for with a step or a read, read as views.

#include <catch2/catch.hpp>

#include <chrono>

#include <coupler/controller/session.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/wire/error.hpp>

#include "answering_server.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// A server of the pendulum and its 2x1 camera that answers a request for images with the eye's depth image;
// `images` false: it announces neither the camera nor the extension.
class CameraServer : public test::AnsweringServer {
 public:
  explicit CameraServer(bool images = true) : AnsweringServer(answer(images)) {}

 private:
  static Answer answer(bool images) {
    HandshakeMessage handshake = test::pendulum_scene({});
    if (images) {
      handshake.server->extensions.push_back(kExtensionImages);
      handshake.cameras = {test::eye_camera({"depth"})};
    }
    return [handshake](Server& server, const Request& request) {
      if (std::holds_alternative<HandshakeInitMessage>(request.message())) {
        server.reply(request, handshake);
        return;
      }
      SensorMessage state = test::pendulum_at(0.25);
      const auto* control = std::get_if<ControlMessage>(&request.message());
      const auto* read = std::get_if<SensorRequestMessage>(&request.message());
      if ((control != nullptr && !control->images.empty()) || (read != nullptr && !read->images.empty())) {
        state.images = {{"eye", "depth", 2, 1, 0.002, test::eye_depth_bytes()}};
      }
      server.reply(request, state);
    };
  }
};

}  // namespace

TEST_CASE("a step asking for images sends the request and reads the images as views of the answer") {
  CameraServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  REQUIRE(session.handshake().cameras.size() == 1);
  const SensorReadings readings = session.step(session.controls(), {{"eye", {"depth"}, 3u}});
  CHECK(readings.angle("pendulum", "hinge") == 0.25);
  const std::map<std::string, CameraImages> images = readings.images();
  const CameraImages& eye = images.at("eye");
  CHECK(eye.time == 0.002);
  REQUIRE(eye.depth.has_value());
  CHECK_FALSE(eye.rgb.has_value());
  const Span<float> depth = eye.depth->pixels<float>();
  CHECK(std::vector<float>(depth.begin(), depth.end()) == std::vector<float>{1.5f, 2.5f});
  // A view of the readings' own bytes: asked again, the same pixels.
  CHECK(readings.images().at("eye").depth->pixels<float>().data == depth.data);
  CHECK(session.sensors({{"eye", {"depth"}}}).images().count("eye") == 1);
  CHECK(session.sensors().images().empty());
  session.close();
  const std::vector<Message> received = server.stop();
  REQUIRE(received.size() >= 2);
  const auto& asked = std::get<ControlMessage>(received[1]).images;
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].camera == "eye");
  CHECK(asked[0].every == 3u);
}

TEST_CASE("images asked of a server without the images extension throw and send nothing") {
  CameraServer server(false);
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK_THROWS_AS(session.step(session.controls(), {{"eye", {"depth"}}}), ExtensionNotSupportedError);
  CHECK_THROWS_WITH(session.sensors({{"eye", {"depth"}}}), Catch::Contains("needs the coupler extension 'images'"));
  session.close();
  CHECK(server.stop().size() == 1);  // the handshake alone
}
