// Session and images through shared memory (the "shm" extension): the announced ring mapped, images viewed
// in it without copies, unless the session opts out.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>
#include <thread>

#include <coupler/controller/session.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/error.hpp>

#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// A server of one hinge and one 2x1 depth camera with a ring of shared memory: a request for images that asks
// for shared memory gets them through the ring, any other through the socket.
class SharedCameraServer {
 public:
  // `transport`: where it serves; `announced`: the ring its handshake names (default: its own).
  explicit SharedCameraServer(const std::string& transport = "inproc",
                              std::optional<SharedMemoryRing> announced = std::nullopt)
      : server_(fresh_address(transport)),
        ring_(2, 4096, 0),
        announced_(announced ? *announced : ring_.announced()),
        thread_([this] { run(); }) {}
  ~SharedCameraServer() { stop(); }
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
    handshake.server = ServerInfo{"coupler", "test", {kExtensionImages, kExtensionSharedMemory}};
    handshake.cameras = {{"eye", 2, 1, {"depth"}, 1.0, 1.0, 0.5, 0.0, 0.01, 10.0, "world", {0, 0, 1}, {1, 0, 0, 0}}};
    handshake.shared_memory = announced_;
    const float metres[] = {1.5f, 2.5f};
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
      const auto* read = std::get_if<SensorRequestMessage>(&request->message());
      if (read != nullptr && read->shared_memory) {
        const SharedRingWriter::Claim claim = ring_.claim();
        std::memcpy(claim.data, metres, sizeof metres);
        ring_.publish(claim);
        state.images = {{"eye", "depth", 2, 1, 0.002, "", SharedSlice{claim.slot, claim.sequence, 0, sizeof metres}}};
      } else if (read != nullptr) {
        state.images = {{"eye", "depth", 2, 1, 0.002, std::string(reinterpret_cast<const char*>(metres), sizeof metres)}};
      }
      server_.reply(*request, state);
    }
  }

  Server server_;
  SharedRingWriter ring_;
  SharedMemoryRing announced_;
  std::vector<Message> received_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
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
