#pragma once
// The server a controller's test talks to: on a thread of its own, it answers each request as the test says, and
// keeps every request it received for the test to look at.

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/messages.hpp>

#include "test_endpoints.hpp"

namespace coupler::test {

class AnsweringServer {
 public:
  // Called on the server's thread with each valid request; it replies, or leaves the request unanswered.
  using Answer = std::function<void(Server& server, const Request& request)>;

  explicit AnsweringServer(Answer answer, const std::string& transport = "inproc")
      : server_(fresh_address(transport)), answer_(std::move(answer)), thread_([this] { run(); }) {}
  ~AnsweringServer() { stop(); }
  AnsweringServer(const AnsweringServer&) = delete;
  AnsweringServer& operator=(const AnsweringServer&) = delete;

  std::string endpoint() const { return server_.endpoint(); }

  // Stops the server's thread; every request it received, in order.
  std::vector<Message> stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return received_;
  }

 private:
  void run() {
    using namespace std::chrono_literals;
    while (!stop_) {
      const std::optional<Request> request = server_.try_receive(20ms);
      if (!request) continue;
      received_.push_back(request->message());
      answer_(server_, *request);
    }
  }

  Server server_;
  Answer answer_;
  std::vector<Message> received_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// A pendulum of one hinge, driven by a torque and read as an angle, stepped 2 ms at a time by a coupler server
// that announces `extensions`.
inline HandshakeMessage pendulum_scene(std::vector<std::string> extensions) {
  HandshakeMessage handshake;
  handshake.time_step = 0.002;
  ObjectDescription& pendulum = handshake.objects["pendulum"];
  pendulum.controls = {"hinge"};
  pendulum.control_types = {ValueType::Torque1D};
  pendulum.joint_sensors = {"hinge"};
  pendulum.joint_sensor_types = {ValueType::Angle};
  handshake.server = ServerInfo{"coupler", "test", std::move(extensions)};
  return handshake;
}

// "eye", a 2x1 camera at the world's origin that renders `channels`.
inline CameraDescription eye_camera(std::vector<std::string> channels) {
  return {"eye", 2, 1, std::move(channels), 1.0, 1.0, 0.5, 0.0, 0.01, 10.0, "world", {0, 0, 1}, {1, 0, 0, 0}};
}

// What the eye sees, in metres, and those depths as the bytes of its 2x1 depth image.
inline constexpr float kEyeDepths[] = {1.5f, 2.5f};
inline std::string eye_depth_bytes() {
  return std::string(reinterpret_cast<const char*>(kEyeDepths), sizeof kEyeDepths);
}

// The eye's depth image written to `ring`, named as an answer names an image in shared memory.
inline Image eye_depth_in(SharedRingWriter& ring) {
  const SharedRingWriter::Claim claim = ring.claim();
  std::memcpy(claim.data, kEyeDepths, sizeof kEyeDepths);
  ring.publish(claim);
  return {"eye", "depth", 2, 1, 0.002, "", SharedSlice{claim.slot, claim.sequence, 0, sizeof kEyeDepths}};
}

// The pendulum's state: its hinge at `angle`, one step in.
inline SensorMessage pendulum_at(double angle) {
  SensorMessage state;
  state.objects["pendulum"].angles = {angle};
  state.simulated_time = 0.002;
  return state;
}

}  // namespace coupler::test
