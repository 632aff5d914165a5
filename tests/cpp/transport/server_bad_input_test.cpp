// A Server answers bad frames with an ErrorMessage and keeps serving.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <zmq.hpp>

#include <coupler/wire/codec.hpp>
#include <coupler/transport/server.hpp>

#include "raw_peer.hpp"
#include "test_endpoints.hpp"
#include "wire_writer.hpp"

using namespace coupler;
using namespace std::chrono_literals;

TEST_CASE("a bad frame is answered with an ErrorMessage naming the problem, then a handshake is served") {
  struct Case {
    const char* name;
    std::vector<std::string> frames;
    const char* problem;
  };
  const std::string sensor = encode(SensorMessage{{{"box", ObjectSensors{{1.0, 2.0}, {}, {}, {}, {}, {}}}}, 1.0});
  const Case c = GENERATE_COPY(values<Case>({
      {"random bytes", {std::string("\xde\xad\xbe\xef\xff\xff", 6)}, "not a protobuf message"},
      {"truncated frame", {sensor.substr(0, sensor.size() - 3)}, "malformed frame"},
      {"unknown message type", {std::string("\x08\x63", 2)}, "unknown message type 99"},
      {"multi-frame message", {encode(HandshakeInitMessage{}), encode(ResetMessage{})}, "multi-frame message of 2 frames"},
  }));
  INFO(c.name);

  std::vector<std::string> log;
  Server server(fresh_address("tcp"), ServerOptions{[&](const std::string& line) { log.push_back(line); }});
  RawPeer peer(server.endpoint());

  peer.send(c.frames);
  CHECK_THROWS_AS(server.receive(300ms), TimeoutError);  // handled inside, never handed to the caller
  const Message answer = peer.receive();
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  CHECK_THAT(std::get<ErrorMessage>(answer).text, Catch::Contains(c.problem));
  CHECK(server.bad_frames() == 1);
  REQUIRE(log.size() == 1);
  CHECK_THAT(log[0], Catch::Contains(c.problem));

  peer.send({encode(HandshakeInitMessage{})});
  const Request request = server.receive(2000ms);
  CHECK(request.type() == MessageType::HandshakeInit);
  server.reply(request, HandshakeMessage{});
  CHECK(std::holds_alternative<HandshakeMessage>(peer.receive()));
}

TEST_CASE("a malformed frame's problem is answered whole, a name holding a NUL byte included") {
  const std::string name("arm\0left", 8);
  WireWriter object;  // two value lists: a Control no decoder takes
  object.packed_doubles_field(1, {1.0});
  object.packed_doubles_field(5, {2.0});
  WireWriter entry;
  entry.bytes_field(1, name);
  entry.bytes_field(2, object.bytes());
  WireWriter frame;
  frame.varint_field(1, static_cast<int>(MessageType::Control));
  frame.bytes_field(2, entry.bytes());

  Server server(fresh_address("tcp"));
  RawPeer peer(server.endpoint());
  peer.send({frame.bytes()});
  CHECK_THROWS_AS(server.receive(300ms), TimeoutError);
  const Message answer = peer.receive();
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  CHECK(std::get<ErrorMessage>(answer).text ==
        "malformed frame: control object '" + name + "' sets 2 of values/angles/angularVelocities/torques; "
        "exactly one is allowed");
}

TEST_CASE("an answer to a peer that has gone is dropped and reported, not thrown") {
  std::vector<std::string> log;
  Server server(fresh_address("tcp"), ServerOptions{[&](const std::string& line) { log.push_back(line); }});
  std::optional<Request> request;
  {
    RawPeer peer(server.endpoint());
    peer.send({encode(SensorRequestMessage{})});
    request = server.receive(2000ms);
  }
  std::this_thread::sleep_for(100ms);  // let the disconnect reach the server
  CHECK_NOTHROW(server.reply(*request, ResetMessage{}));
  REQUIRE(log.size() == 1);
  CHECK_THAT(log[0], Catch::Contains("answer dropped"));
  CHECK(server.bad_frames() == 0);
}

TEST_CASE("a message without the REQ delimiter is answered with an ErrorMessage") {
  std::vector<std::string> log;
  Server server(fresh_address("tcp"), ServerOptions{[&](const std::string& line) { log.push_back(line); }});
  zmq::context_t context;
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::rcvtimeo, 2000);
  dealer.connect(server.endpoint());
  dealer.send(zmq::buffer(encode(HandshakeInitMessage{})), zmq::send_flags::none);
  CHECK_THROWS_AS(server.receive(300ms), TimeoutError);
  zmq::message_t answer;
  REQUIRE(dealer.recv(answer));
  const Message decoded = decode(answer.to_string_view());
  REQUIRE(std::holds_alternative<ErrorMessage>(decoded));
  CHECK_THAT(std::get<ErrorMessage>(decoded).text, Catch::Contains("no empty delimiter"));
  CHECK(server.bad_frames() == 1);
}
