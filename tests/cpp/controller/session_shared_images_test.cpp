// Session and images through shared memory (the "shm" extension): the announced ring mapped, images viewed
// in it without copies, unless the session opts out.

#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <coupler/controller/session.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/error.hpp>

#include "answering_server.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// A server of the pendulum and its 2x1 depth camera with a ring of shared memory: a request for images that asks
// for shared memory gets them through the ring, any other through the socket.
class SharedCameraServer : public test::AnsweringServer {
 public:
  // `transport`: where it serves; `announced`: the ring its handshake names (default: its own).
  explicit SharedCameraServer(const std::string& transport = "inproc",
                              std::optional<SharedMemoryRing> announced = std::nullopt)
      : AnsweringServer(answer(std::make_shared<SharedRingWriter>(2, 4096, 0), std::move(announced)), transport) {}

 private:
  static Answer answer(std::shared_ptr<SharedRingWriter> ring, std::optional<SharedMemoryRing> announced) {
    HandshakeMessage handshake = test::pendulum_scene({kExtensionImages, kExtensionSharedMemory});
    handshake.cameras = {test::eye_camera({"depth"})};
    handshake.shared_memory = announced ? *announced : ring->announced();
    return [handshake, ring](Server& server, const Request& request) {
      if (std::holds_alternative<HandshakeInitMessage>(request.message())) {
        server.reply(request, handshake);
        return;
      }
      SensorMessage state = test::pendulum_at(0.25);
      const auto* read = std::get_if<SensorRequestMessage>(&request.message());
      if (read != nullptr && read->shared_memory) {
        state.images = {test::eye_depth_in(*ring)};
      } else if (read != nullptr) {
        state.images = {{"eye", "depth", 2, 1, 0.002, test::eye_depth_bytes()}};
      }
      server.reply(request, state);
    };
  }
};

bool asked_for_shared_memory(const std::vector<Message>& received) {
  return std::get<SensorRequestMessage>(received.at(1)).shared_memory;
}

}  // namespace

TEST_CASE("a session at an inproc address views images in the announced ring, no copy") {
  SharedCameraServer server;
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  REQUIRE(session.shared_memory() != nullptr);
  const SensorReadings readings = session.sensors({{"eye", {"depth"}}});
  const std::map<std::string, CameraImages> images = readings.images();
  const Span<float> depth = images.at("eye").depth->pixels<float>();
  CHECK(std::vector<float>(depth.begin(), depth.end()) == std::vector<float>{1.5f, 2.5f});
  const SharedSlice& slice = *readings.message().images.at(0).shared;
  CHECK(reinterpret_cast<const std::uint8_t*>(depth.data) == session.shared_memory()->view(slice));
  session.close();
  CHECK(asked_for_shared_memory(server.stop()));
}

TEST_CASE("a session that opts out of shared memory gets its images through the socket") {
  SharedCameraServer server;
  SessionOptions options{ClientOptions{2000ms}};
  options.shared_memory = false;
  Session session(server.endpoint(), options);
  CHECK(session.shared_memory() == nullptr);
  const SensorReadings readings = session.sensors({{"eye", {"depth"}}});
  const Span<float> depth = readings.images().at("eye").depth->pixels<float>();
  CHECK(std::vector<float>(depth.begin(), depth.end()) == std::vector<float>{1.5f, 2.5f});
  session.close();
  CHECK_FALSE(asked_for_shared_memory(server.stop()));
}

TEST_CASE("a session at a tcp address leaves the announced ring unmapped and takes images through the socket") {
  SharedCameraServer server("tcp");
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK(session.shared_memory() == nullptr);
  const Span<float> depth = session.sensors({{"eye", {"depth"}}}).images().at("eye").depth->pixels<float>();
  CHECK(std::vector<float>(depth.begin(), depth.end()) == std::vector<float>{1.5f, 2.5f});
  session.close();
  CHECK_FALSE(asked_for_shared_memory(server.stop()));
}

TEST_CASE("a session that cannot map the announced ring logs why in one line and takes images through the socket") {
  SharedMemoryRing elsewhere = SharedRingWriter(2, 4096, 0).announced();
  elsewhere.path = "/nonexistent/coupler-ring";
  SharedCameraServer server("inproc", elsewhere);
  std::vector<std::string> lines;
  SessionOptions options{ClientOptions{2000ms}};
  options.log = [&lines](const std::string& line) { lines.push_back(line); };
  Session session(server.endpoint(), options);
  CHECK(session.shared_memory() == nullptr);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("images come through the socket: cannot open the shared memory"));
  CHECK(lines[0].find('\n') == std::string::npos);
  const Span<float> depth = session.sensors({{"eye", {"depth"}}}).images().at("eye").depth->pixels<float>();
  CHECK(std::vector<float>(depth.begin(), depth.end()) == std::vector<float>{1.5f, 2.5f});
  session.close();
  CHECK_FALSE(asked_for_shared_memory(server.stop()));
}
