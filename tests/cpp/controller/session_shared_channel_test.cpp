// Session and the server's shared channel (the "shm" extension): leased in the handshake when asked for at a
// same-host address, Controls and reads then go through it after the first step, those asking for images when
// their images come through the ring; a server that offers none, or a session that does not ask, keeps
// everything on the socket.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <coupler/controller/session.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/transport/shared_channel.hpp>
#include <coupler/transport/shared_ring.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

#include "answering_server.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// A server of one hinge whose answers count the requests that reached it: through the socket (angle 1, 2, ...)
// or through its channel (angle 101, 102, ...), which it names in the handshake of a client that asks for it
// when `offers` is set. It hands plain reads through the channel back (an empty answer) and answers reads of
// its 2x1 depth camera there, the image through its ring; `mute()` stops its answers through the channel.
class ChannelServer {
 public:
  explicit ChannelServer(bool offers)
      : offers_(offers), server_(fresh_address("inproc")), channel_(4096), ring_(2, 4096, 0),
        thread_([this] { run(); }) {}
  ~ChannelServer() { stop(); }
  std::string endpoint() const { return server_.endpoint(); }
  bool asked() const { return asked_; }
  void mute() { mute_ = true; }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    HandshakeMessage handshake = test::pendulum_scene({kExtensionSharedMemory, kExtensionGoodbye, kExtensionImages});
    handshake.cameras = {test::eye_camera({"depth"})};
    handshake.shared_memory = ring_.announced();
    int through_socket = 0;
    int through_channel = 0;
    while (!stop_) {
      // Muted, a request is taken and left unanswered.
      if (const std::optional<std::string_view> request = channel_.receive(1ms); request && !mute_) {
        const Message message = decode(*request);
        const auto* read = std::get_if<SensorRequestMessage>(&message);
        if (read != nullptr && read->images.empty()) {
          // Plain reads are handed back to the socket, as coupler serve's hot path hands back what it does not serve.
          channel_.reply(std::string());
        } else {
          SensorMessage answer = test::pendulum_at(101 + through_channel++);
          if (read != nullptr) answer.images = {test::eye_depth_in(ring_)};
          channel_.reply(encode(Message(answer)));
        }
      }
      const std::optional<Request> request = server_.try_receive();
      if (!request) continue;
      if (const auto* init = std::get_if<HandshakeInitMessage>(&request->message())) {
        asked_ = init->shared_channel;
        HandshakeMessage answer = handshake;
        if (offers_ && init->shared_channel) answer.shared_channel = channel_.path();
        server_.reply(*request, answer);
      } else if (std::holds_alternative<ResetMessage>(request->message())) {
        server_.reply(*request, ResetMessage{});
      } else if (!std::holds_alternative<ErrorMessage>(request->message())) {
        server_.reply(*request, test::pendulum_at(1 + through_socket++));
      }
    }
  }

  bool offers_;
  Server server_;
  SharedChannelServer channel_;
  SharedRingWriter ring_;
  std::atomic<bool> mute_{false};
  std::atomic<bool> asked_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

double angle(const SensorReadings& readings) { return readings.message().objects.at("pendulum").angles.at(0); }

}  // namespace

TEST_CASE("a session that leases the channel steps through it after its first step, and resends what it hands back") {
  ChannelServer server(true);
  SessionOptions options{ClientOptions{2000ms}};
  options.shared_channel = true;
  Session session(server.endpoint(), options);
  CHECK(server.asked());
  REQUIRE(session.shared_channel());
  Controls controls = session.controls();
  CHECK(angle(session.step(controls)) == 1.0);
  CHECK(angle(session.step(controls)) == 101.0);
  CHECK(angle(session.step(controls)) == 102.0);
  CHECK(angle(session.sensors()) == 2.0);  // handed back, then sent through the socket
  session.reset();  // through the socket, and the next step too
  CHECK(angle(session.step(controls)) == 3.0);
  CHECK(angle(session.step(controls)) == 103.0);
}

TEST_CASE("a session whose server offers no channel steps through the socket") {
  ChannelServer server(false);
  SessionOptions options{ClientOptions{2000ms}};
  options.shared_channel = true;
  Session session(server.endpoint(), options);
  CHECK_FALSE(session.shared_channel());
  Controls controls = session.controls();
  CHECK(angle(session.step(controls)) == 1.0);
  CHECK(angle(session.step(controls)) == 2.0);
}

TEST_CASE("a session that does not ask for the channel does not lease it") {
  ChannelServer server(true);
  Session session(server.endpoint(), SessionOptions{ClientOptions{2000ms}});
  CHECK_FALSE(server.asked());
  CHECK_FALSE(session.shared_channel());
  Controls controls = session.controls();
  session.step(controls);
  CHECK(angle(session.step(controls)) == 2.0);
}

TEST_CASE("a session that leases the channel asks for images through it, the images coming through the ring") {
  ChannelServer server(true);
  SessionOptions options{ClientOptions{2000ms}};
  options.shared_channel = true;
  Session session(server.endpoint(), options);
  REQUIRE(session.shared_memory() != nullptr);
  Controls controls = session.controls();
  CHECK(angle(session.step(controls)) == 1.0);
  const SensorReadings readings = session.sensors({{"eye", {"depth"}}});
  CHECK(angle(readings) == 101.0);
  const Span<float> depth = readings.images().at("eye").depth->pixels<float>();
  CHECK(std::vector<float>(depth.begin(), depth.end()) == std::vector<float>{1.5f, 2.5f});
}

TEST_CASE("a session whose wait through the channel times out gives the channel up and goes on through the socket") {
  ChannelServer server(true);
  SessionOptions options{ClientOptions{200ms}};
  options.shared_channel = true;
  Session session(server.endpoint(), options);
  Controls controls = session.controls();
  CHECK(angle(session.step(controls)) == 1.0);
  server.mute();
  CHECK_THROWS_AS(session.step(controls), TimeoutError);
  CHECK_FALSE(session.shared_channel());
  CHECK(angle(session.step(controls)) == 2.0);
}

TEST_CASE("a session that leases the channel but takes no shared memory asks for images through the socket") {
  ChannelServer server(true);
  SessionOptions options{ClientOptions{2000ms}};
  options.shared_channel = true;
  options.shared_memory = false;
  Session session(server.endpoint(), options);
  REQUIRE(session.shared_channel());
  Controls controls = session.controls();
  CHECK(angle(session.step(controls)) == 1.0);
  CHECK(angle(session.sensors({{"eye", {"depth"}}})) == 2.0);
  CHECK(angle(session.step(controls)) == 101.0);
}
