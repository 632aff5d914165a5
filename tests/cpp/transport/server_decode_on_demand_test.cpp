// ServerOptions::decode_on_demand: requests of those kinds reach the caller
// undecoded, so refusing one costs nothing like decoding it.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <zmq.hpp>

#include <coupler/wire/codec.hpp>
#include <coupler/transport/server.hpp>

#include "raw_peer.hpp"
#include "test_endpoints.hpp"
#include "wire_writer.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// A Control whose top level is well formed and whose one object is not a protobuf message at all.
std::string control_broken_inside() {
  WireWriter object_entry;
  object_entry.bytes_field(1, "arm");
  object_entry.bytes_field(2, std::string("\xff\xff\xff\xff", 4));
  WireWriter control;
  control.varint_field(1, static_cast<int>(MessageType::Control));
  control.bytes_field(2, object_entry.bytes());
  return control.bytes();
}

ServerOptions deferring_controls(std::vector<std::string>* log) {
  ServerOptions options;
  options.on_bad_frame = [log](const std::string& line) { log->push_back(line); };
  options.decode_on_demand = {MessageType::Control};
  return options;
}

// The ErrorMessage a server without decode_on_demand answers `frame` with on arrival.
ErrorMessage refusal_on_arrival(const std::string& frame) {
  Server server(fresh_address("tcp"), ServerOptions{[](const std::string&) {}});
  RawPeer peer(server.endpoint());
  peer.send(frame);
  CHECK_THROWS_AS(server.receive(300ms), TimeoutError);
  const Message answer = peer.receive();
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  return std::get<ErrorMessage>(answer);
}

}  // namespace

TEST_CASE("a kind decoded on demand reaches the caller undecoded, even when its body would not decode") {
  std::vector<std::string> log;
  Server server(fresh_address("tcp"), deferring_controls(&log));
  RawPeer peer(server.endpoint());
  peer.send(control_broken_inside());
  const Request request = server.receive(2000ms);
  CHECK(request.type() == MessageType::Control);
  CHECK_FALSE(request.decoded());
  CHECK_THROWS_AS(request.message(), Error);
  CHECK(server.bad_frames() == 0);
  CHECK(log.empty());
}

TEST_CASE("completing a request that does not decode answers and reports it as on arrival") {
  const std::string frame = control_broken_inside();
  std::vector<std::string> log;
  Server server(fresh_address("tcp"), deferring_controls(&log));
  RawPeer peer(server.endpoint());
  peer.send(frame);
  Request request = server.receive(2000ms);
  CHECK_FALSE(server.complete(request));
  const Message answer = peer.receive();
  REQUIRE(std::holds_alternative<ErrorMessage>(answer));
  const ErrorMessage expected = refusal_on_arrival(frame);
  CHECK(std::get<ErrorMessage>(answer).code == expected.code);
  CHECK(std::get<ErrorMessage>(answer).text == expected.text);
  CHECK(server.bad_frames() == 1);
  REQUIRE(log.size() == 1);
  CHECK(log[0] == expected.text);
}

TEST_CASE("completing a valid request decodes it") {
  std::vector<std::string> log;
  Server server(fresh_address("tcp"), deferring_controls(&log));
  RawPeer peer(server.endpoint());
  ControlMessage control;
  control.objects["arm"].values = {0.5};
  control.steps = 3;
  peer.send(encode(control));
  Request request = server.receive(2000ms);
  REQUIRE(server.complete(request));
  CHECK(request.decoded());
  const auto& decoded = std::get<ControlMessage>(request.message());
  CHECK(decoded.steps == 3);
  CHECK(decoded.objects.at("arm").values == std::vector<double>{0.5});
}

TEST_CASE("only the kinds named are decoded on demand, and a top level that does not scan is decoded on arrival") {
  std::vector<std::string> log;
  Server server(fresh_address("tcp"), deferring_controls(&log));
  RawPeer peer(server.endpoint());
  peer.send(encode(SensorRequestMessage{}));
  CHECK(server.receive(2000ms).decoded());

  RawPeer truncated(server.endpoint());
  std::string frame = encode(ControlMessage{{{"arm", ObjectControl{{1.0}, {}, {}}}}});
  frame.pop_back();  // the object's field now runs past the end of the frame
  truncated.send(frame);
  CHECK_THROWS_AS(server.receive(300ms), TimeoutError);
  CHECK(std::holds_alternative<ErrorMessage>(truncated.receive()));
  CHECK(server.bad_frames() == 1);
}

TEST_CASE("a Control with a top-level tag wider than 32 bits is decoded on arrival, which refuses it") {
  std::vector<std::string> log;
  Server server(fresh_address("tcp"), deferring_controls(&log));
  RawPeer peer(server.endpoint());
  // messageType Control, then a varint field whose five-byte tag is 2^32.
  peer.send(std::string("\x08\x02\x80\x80\x80\x80\x10\x00", 8));
  CHECK_THROWS_AS(server.receive(300ms), TimeoutError);
  CHECK(std::holds_alternative<ErrorMessage>(peer.receive()));
  CHECK(server.bad_frames() == 1);
}
