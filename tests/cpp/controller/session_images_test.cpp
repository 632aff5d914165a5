// Session and camera images (the "images" extension): asked for with a step or a read, read as views.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include <coupler/controller/session.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/wire/error.hpp>

#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// A server of one hinge and one 2x1 camera that answers a request for images with a depth image of
// 1.5 m and 2.5 m; `images` false: it announces neither the camera nor the extension.
class CameraServer {
 public:
  explicit CameraServer(bool images = true)
      : server_(fresh_address("inproc")), images_(images), thread_([this] { run(); }) {}
  ~CameraServer() { stop(); }
  std::string endpoint() const { return server_.endpoint(); }
  std::vector<Message> stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return received_;
  }

 private:
  void run() {
    HandshakeMessage handshake;
    handshake.time_step = 0.002;
    ObjectDescription& pendulum = handshake.objects["pendulum"];
    pendulum.controls = {"hinge"};
    pendulum.control_types = {ValueType::Torque1D};
    pendulum.joint_sensors = {"hinge"};
    pendulum.joint_sensor_types = {ValueType::Angle};
    handshake.server = ServerInfo{"coupler", "test", {}};
    if (images_) {
      handshake.server->extensions.push_back(kExtensionImages);
      handshake.cameras = {{"eye", 2, 1, {"depth"}, 1.0, 1.0, 0.5, 0.0, 0.01, 10.0, "world", {0, 0, 1}, {1, 0, 0, 0}}};
    }
    const float metres[] = {1.5f, 2.5f};
    std::string depth(sizeof metres, '\0');
    std::memcpy(depth.data(), metres, sizeof metres);
    while (!stop_) {
      std::optional<Request> request;
      try {
        request = server_.receive(20ms);
      } catch (const TimeoutError&) {
        continue;
      }
      received_.push_back(request->message());
      if (std::holds_alternative<HandshakeInitMessage>(request->message())) {
        server_.reply(*request, handshake);
        continue;
      }
      SensorMessage state;
      state.objects["pendulum"].angles = {0.25};
      state.simulated_time = 0.002;
      const auto* control = std::get_if<ControlMessage>(&request->message());
      const auto* read = std::get_if<SensorRequestMessage>(&request->message());
      if ((control != nullptr && !control->images.empty()) || (read != nullptr && !read->images.empty())) {
        state.images = {{"eye", "depth", 2, 1, 0.002, depth}};
      }
      server_.reply(*request, state);
    }
  }

  Server server_;
  bool images_;
  std::vector<Message> received_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
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
