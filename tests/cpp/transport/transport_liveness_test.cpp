// What the transport does about peers that go away and frames that are too large.

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include <zmq.hpp>

#include <coupler/transport/client.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// Polls take_closed_peers() until it has reported something or `timeout` passes.
std::vector<std::string> closed_peers_within(Server& server, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<std::string> closed;
  while (closed.empty() && std::chrono::steady_clock::now() < deadline) {
    closed = server.take_closed_peers();
    if (closed.empty()) std::this_thread::sleep_for(10ms);
  }
  return closed;
}

}  // namespace

TEST_CASE("a peer whose connection closed is reported once by take_closed_peers") {
  const std::string transport = GENERATE(as<std::string>{}, "ipc", "tcp");
  Server server(fresh_address(transport));
  std::string peer;
  {
    Client client(server.endpoint(), ClientOptions{2000ms, 0ms});
    client.send(SensorRequestMessage{});
    const Request request = server.receive(2000ms);
    peer = request.peer();
    server.reply(request, ResetMessage{});
    client.receive();
    CHECK(server.take_closed_peers().empty());
  }
  CHECK(closed_peers_within(server, 2000ms) == std::vector<std::string>{peer});
  CHECK(server.take_closed_peers().empty());
}

TEST_CASE("a peer still connected is not reported as closed while another one leaves") {
  Server server(fresh_address("tcp"));
  Client staying(server.endpoint(), ClientOptions{2000ms, 0ms});
  staying.send(SensorRequestMessage{});
  const Request stays = server.receive(2000ms);
  server.reply(stays, ResetMessage{});
  staying.receive();
  std::string left;
  {
    Client leaving(server.endpoint(), ClientOptions{2000ms, 0ms});
    leaving.send(SensorRequestMessage{});
    left = server.receive(2000ms).peer();
  }
  CHECK(closed_peers_within(server, 2000ms) == std::vector<std::string>{left});
}

TEST_CASE("a frame over the size limit never reaches the server and the server keeps serving") {
  Server server(fresh_address("tcp"));
  zmq::context_t context;
  zmq::socket_t sender(context, zmq::socket_type::req);
  sender.set(zmq::sockopt::linger, 0);
  sender.connect(server.endpoint());
  const std::string two_mib(2 * 1024 * 1024, 'x');
  sender.send(zmq::buffer(two_mib), zmq::send_flags::none);
  CHECK_THROWS_AS(server.receive(500ms), TimeoutError);
  CHECK(server.bad_frames() == 0);

  Client client(server.endpoint(), ClientOptions{2000ms, 0ms});
  client.send(SensorRequestMessage{});
  const Request request = server.receive(2000ms);
  CHECK(request.type() == MessageType::SensorRequest);
}

TEST_CASE("a client with a small frame limit times out on a larger answer and carries on after reconnect") {
  Server server(fresh_address("tcp"));
  ClientOptions options{500ms, 0ms};
  options.max_frame_bytes = 100;
  Client client(server.endpoint(), options);
  client.send(SensorRequestMessage{});
  const Request request = server.receive(2000ms);
  ErrorMessage large{static_cast<int>(ErrorCode::InternalError), std::string(1000, 'y')};
  server.reply(request, large);
  CHECK_THROWS_AS(client.receive(), TimeoutError);

  // ZeroMQ gave up on the connection that broke the limit; a fresh one works.
  client.reconnect();
  client.send(SensorRequestMessage{});
  server.reply(server.receive(2000ms), ResetMessage{});
  CHECK(std::holds_alternative<ResetMessage>(client.receive(2000ms)));
}
