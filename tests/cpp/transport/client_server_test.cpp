// Client and Server talking over every transport, and what a timeout does.

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <thread>

#include <coupler/transport/client.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

#include "abandoned_request.hpp"
#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

TEST_CASE("a request gets its reply over every transport") {
  const std::string transport = GENERATE(as<std::string>{}, "inproc", "ipc", "tcp");
  Server server(fresh_address(transport));
  Client client(server.endpoint(), ClientOptions{2000ms});

  client.send(HandshakeInitMessage{});
  const Request request = server.receive(2000ms);
  REQUIRE(request.type() == MessageType::HandshakeInit);
  HandshakeMessage handshake;
  handshake.time_step = 0.001;
  server.reply(request, handshake);

  const Message answer = client.receive();
  REQUIRE(std::holds_alternative<HandshakeMessage>(answer));
  CHECK(std::get<HandshakeMessage>(answer).time_step == 0.001);
}

TEST_CASE("try_receive returns nothing until the reply has arrived") {
  Server server(fresh_address("inproc"));
  Client client(server.endpoint());
  client.send(SensorRequestMessage{});
  CHECK_FALSE(client.try_receive().has_value());

  server.reply(server.receive(2000ms), ResetMessage{});
  REQUIRE(client.wait(2000ms));
  const std::optional<Message> answer = client.try_receive();
  REQUIRE(answer.has_value());
  CHECK(std::holds_alternative<ResetMessage>(*answer));
}

TEST_CASE("a server with no request waiting says so without blocking") {
  Server server(fresh_address("inproc"));
  CHECK_FALSE(server.try_receive().has_value());
}

TEST_CASE("a server waiting for a request that does not come gives nothing once its timeout has passed, not before") {
  Server server(fresh_address("inproc"));
  const auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(server.try_receive(50ms).has_value());
  CHECK(std::chrono::steady_clock::now() - start >= 50ms);
}

TEST_CASE("a server waiting for a request gives the one that comes within its timeout") {
  Server server(fresh_address("inproc"));
  Client client(server.endpoint(), ClientOptions{2000ms});
  std::thread later([&] {
    std::this_thread::sleep_for(20ms);
    client.send(SensorRequestMessage{});
  });
  const std::optional<Request> request = server.try_receive(2000ms);
  later.join();
  REQUIRE(request.has_value());
  CHECK(request->type() == MessageType::SensorRequest);
}

TEST_CASE("receive throws TimeoutError within its timeout when the server never answers") {
  Server server(fresh_address("tcp"));
  Client client(server.endpoint());
  client.send(SensorRequestMessage{});
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(client.receive(200ms), TimeoutError);
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(waited >= 190ms);
  CHECK(waited < 1500ms);
}

TEST_CASE("a timeout set after connecting is the one receive waits by default") {
  Server server(fresh_address("inproc"));
  Client client(server.endpoint(), ClientOptions{5000ms});
  client.set_timeout(50ms);
  CHECK(client.options().timeout == 50ms);
  client.send(SensorRequestMessage{});
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(client.receive(), TimeoutError);
  CHECK(std::chrono::steady_clock::now() - start < 1500ms);
}

TEST_CASE("a client whose request timed out can send again and gets the new answer, not the stale one") {
  Server server(fresh_address("inproc"));
  Client client(server.endpoint());
  const AbandonedRequest requests = abandon_one_request(server, client);
  server.reply(requests.abandoned, ErrorMessage{0, "late answer to the abandoned request"});
  server.reply(requests.current, ResetMessage{});
  CHECK(std::holds_alternative<ResetMessage>(client.receive(2000ms)));
}

TEST_CASE("server receive throws TimeoutError when no request comes") {
  Server server(fresh_address("inproc"));
  CHECK_THROWS_AS(server.receive(50ms), TimeoutError);
}

TEST_CASE("a client that cannot reach a server times out instead of hanging") {
  Client client("tcp://127.0.0.1:1", ClientOptions{100ms});  // nothing listens on port 1
  client.send(HandshakeInitMessage{});
  CHECK_THROWS_AS(client.receive(), TimeoutError);
}

TEST_CASE("a bad address is reported as coupler::Error naming it") {
  CHECK_THROWS_WITH(Client("nonsense://x"), Catch::Contains("nonsense://x"));
  CHECK_THROWS_WITH(Server("tcp://256.0.0.1:5"), Catch::Contains("binding tcp://256.0.0.1:5"));
}

TEST_CASE("the server's endpoint names the port it bound") {
  Server server("tcp://127.0.0.1:*");
  CHECK_THAT(server.endpoint(), Catch::StartsWith("tcp://127.0.0.1:") && !Catch::EndsWith(":*"));
}

TEST_CASE("a server removes its ipc socket file when it closes") {
  const std::string address = fresh_address("ipc");
  const std::string path = address.substr(std::string("ipc://").size());
  {
    Server server(address);
    CHECK(std::filesystem::exists(path));
  }
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("a late answer to an abandoned request neither satisfies nor blocks the next receive") {
  Server server(fresh_address("inproc"));
  Client client(server.endpoint());
  const AbandonedRequest requests = abandon_one_request(server, client);
  server.reply(requests.abandoned, ErrorMessage{0, "stale"});
  std::this_thread::sleep_for(50ms);  // the stale answer has arrived and wakes the poll
  CHECK_FALSE(client.try_receive().has_value());
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(client.receive(100ms), TimeoutError);
  CHECK(std::chrono::steady_clock::now() - start < 1500ms);
  server.reply(requests.current, ResetMessage{});
  CHECK(std::holds_alternative<ResetMessage>(client.receive(2000ms)));
}

TEST_CASE("a receive that times out never returns before its timeout") {
  Server server(fresh_address("inproc"));
  for (int i = 0; i < 10; ++i) {
    const auto started = std::chrono::steady_clock::now();
    CHECK_THROWS_AS(server.receive(20ms), TimeoutError);
    CHECK(std::chrono::steady_clock::now() - started >= 20ms);
  }
}

TEST_CASE("the raw frame of a request and of an answer is what was sent") {
  Server server(fresh_address("inproc"));
  Client client(server.endpoint(), ClientOptions{2000ms});
  client.send(SensorRequestMessage{});
  const Request request = server.receive(2000ms);
  CHECK(request.frame() == encode(SensorRequestMessage{}));
  server.reply_frame(request, encode(ResetMessage{}));
  CHECK(client.receive_frame(2000ms) == encode(ResetMessage{}));
}
