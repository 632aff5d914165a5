// Carrying on after the server restarted: Client::reconnect, Session::reconnect
// and the session's automatic reconnect attempts.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <coupler/transport/client.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/controller/session.hpp>

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// ZeroMQ closes a socket's listener in the background: a server recreated
// in the same process may find its port still taken for a moment.
Server bind_when_free(const std::string& address) {
  const auto deadline = std::chrono::steady_clock::now() + 2s;
  for (;;) {
    try {
      return Server(address);
    } catch (const Error&) {
      if (std::chrono::steady_clock::now() > deadline) throw;
      std::this_thread::sleep_for(10ms);
    }
  }
}

HandshakeMessage scene(const std::string& robot) {
  HandshakeMessage handshake;
  handshake.time_step = 0.01;
  ObjectDescription& object = handshake.objects[robot];
  object.controls = {"joint"};
  object.control_types = {ValueType::Angle};
  object.joint_sensors = {"joint"};
  object.joint_sensor_types = {ValueType::Angle};
  return handshake;
}

// A server thread answering handshakes with `scene` and every other request
// with a Sensor; stopping it closes its socket, as a killed server would.
class SceneServer {
 public:
  SceneServer(const std::string& address, HandshakeMessage handshake)
      : server_(bind_when_free(address)), handshake_(std::move(handshake)), thread_([this] { run(); }) {}
  ~SceneServer() {
    stop_ = true;
    thread_.join();
  }
  std::string endpoint() const { return server_.endpoint(); }
  int controls() const { return controls_; }

 private:
  void run() {
    SensorMessage state;
    state.objects[handshake_.objects.begin()->first].angles = {0.0};
    while (!stop_) {
      std::optional<Request> request;
      try {
        request = server_.receive(20ms);
      } catch (const TimeoutError&) {
        continue;
      }
      if (request->type() == MessageType::HandshakeInit) {
        server_.reply(*request, handshake_);
      } else if (request->type() != MessageType::Error) {
        if (request->type() == MessageType::Control) ++controls_;
        server_.reply(*request, state);
      }
    }
  }

  Server server_;
  HandshakeMessage handshake_;
  std::atomic<bool> stop_{false};
  std::atomic<int> controls_{0};
  std::thread thread_;
};

// A loopback port that was free a moment ago (the kernel picks it).
std::string restartable_address() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return "tcp://127.0.0.1:" + std::to_string(ntohs(address.sin_port));
}

// Starts the server again well after a pending request has timed out
// (500 ms): back during a reconnect attempt. (A server back within the
// timeout gets the queued request through ZeroMQ's own reconnection.)
std::thread restart_after_timeout(std::unique_ptr<SceneServer>& server, const std::string& address) {
  return std::thread([&server, address] {
    std::this_thread::sleep_for(1000ms);
    server = std::make_unique<SceneServer>(address, scene("arm"));
  });
}

SessionOptions quick_options(int reconnect_attempts = 0) {
  SessionOptions options{ClientOptions{500ms, 0ms}};
  options.reconnect_attempts = reconnect_attempts;
  return options;
}

}  // namespace

TEST_CASE("a client reconnects to a restarted server and is answered") {
  const std::string address = restartable_address();
  auto server = std::make_unique<SceneServer>(address, scene("arm"));
  Client client(address, ClientOptions{500ms, 0ms});
  CHECK(std::holds_alternative<HandshakeMessage>(client.request(HandshakeInitMessage{})));
  server.reset();
  client.send(SensorRequestMessage{});
  CHECK_THROWS_AS(client.receive(), TimeoutError);
  server = std::make_unique<SceneServer>(address, scene("arm"));
  client.reconnect();
  CHECK(std::holds_alternative<HandshakeMessage>(client.request(HandshakeInitMessage{})));
}

TEST_CASE("a session times out while its server is gone and resumes with reconnect") {
  const std::string address = restartable_address();
  auto server = std::make_unique<SceneServer>(address, scene("arm"));
  Session session(address, quick_options());
  session.step(session.controls());
  server.reset();
  const auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(session.step(session.controls()), TimeoutError);
  CHECK(std::chrono::steady_clock::now() - started < 1500ms);
  server = std::make_unique<SceneServer>(address, scene("arm"));
  session.reconnect();
  CHECK(session.step(session.controls()).time() == 0.0);
}

TEST_CASE("reconnect refuses a server that now serves another scene unless told to accept it") {
  const std::string address = restartable_address();
  auto server = std::make_unique<SceneServer>(address, scene("arm"));
  Session session(address, quick_options());
  server.reset();
  server = std::make_unique<SceneServer>(address, scene("rover"));
  CHECK_THROWS_AS(session.reconnect(), SceneChangedError);
  CHECK(session.handshake().objects.count("arm") == 1);
  session.reconnect(/*accept_scene_change=*/true);
  CHECK(session.handshake().objects.count("rover") == 1);
}

TEST_CASE("with reconnect attempts a sensor request is sent again after a restart") {
  const std::string address = restartable_address();
  auto server = std::make_unique<SceneServer>(address, scene("arm"));
  Session session(address, quick_options(/*reconnect_attempts=*/3));
  server.reset();
  std::thread restart = restart_after_timeout(server, address);
  CHECK_NOTHROW(session.sensors());
  restart.join();
}

TEST_CASE("with reconnect attempts a control is not sent again: ReconnectedError, and the session goes on") {
  const std::string address = restartable_address();
  auto server = std::make_unique<SceneServer>(address, scene("arm"));
  Session session(address, quick_options(/*reconnect_attempts=*/3));
  server.reset();
  std::thread restart = restart_after_timeout(server, address);
  CHECK_THROWS_AS(session.step(session.controls()), ReconnectedError);
  restart.join();
  CHECK(server->controls() == 0);
  session.step(session.controls());
  CHECK(server->controls() == 1);
}

TEST_CASE("with reconnect attempts and no server coming back, the session times out in bounded time") {
  const std::string address = restartable_address();
  auto server = std::make_unique<SceneServer>(address, scene("arm"));
  Session session(address, quick_options(/*reconnect_attempts=*/2));
  server.reset();
  const auto started = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(session.sensors(), TimeoutError);
  // One timeout for the request, one for each attempt's handshake.
  CHECK(std::chrono::steady_clock::now() - started < 3 * 500ms + 1000ms);
}
