// The serving vectors (tests/vectors/serve/): a controller's session with the
// static scene and the server's answers, as the Python server sends them.
// C++ holds its part of the server to them: coupler::Server answers the bad
// frames itself, and ControlLayout refuses the Controls the server refuses,
// with the same code and text.

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <zmq.hpp>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

using Frames = std::vector<std::string>;

struct Exchange {
  Frames request;
  std::optional<Frames> answer;  // none: no answer is due
};

// The file's layout (make_serve_vectors.py): each exchange is its request,
// then its answer, each a uint32 LE count of frames followed by each frame as
// a uint32 LE byte count and its bytes; an answer of no frames is none.
class SessionFile {
 public:
  explicit SessionFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    REQUIRE(file.good());
    data_.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }

  std::vector<Exchange> exchanges() {
    std::vector<Exchange> all;
    while (at_ < data_.size()) {
      Exchange exchange{frames(), std::nullopt};
      Frames answer = frames();
      if (!answer.empty()) exchange.answer = std::move(answer);
      all.push_back(std::move(exchange));
    }
    return all;
  }

 private:
  std::uint32_t count() {
    REQUIRE(at_ + 4 <= data_.size());
    const auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(data_[at_ + i])); };
    const std::uint32_t value = byte(0) | byte(1) << 8 | byte(2) << 16 | byte(3) << 24;
    at_ += 4;
    return value;
  }

  Frames frames() {
    Frames parts(count());
    for (std::string& part : parts) {
      const std::uint32_t size = count();
      REQUIRE(at_ + size <= data_.size());
      part = data_.substr(at_, size);
      at_ += size;
    }
    return parts;
  }

  std::string data_;
  std::size_t at_ = 0;
};

std::vector<Exchange> static_session() {
  return SessionFile(std::string(COUPLER_VECTORS_DIR) + "/serve/static_session.bin").exchanges();
}

// The message a frame holds, or nothing when it is not a valid message.
std::optional<Message> decoded(const std::string& frame) {
  try {
    return decode(frame);
  } catch (const ProtocolError&) {
    return std::nullopt;
  }
}

// The ErrorMessage an answer of the usual shape (delimiter, payload) holds, if it holds one.
std::optional<ErrorMessage> error_in(const std::optional<Frames>& answer) {
  if (!answer || answer->size() != 2) return std::nullopt;
  const std::optional<Message> message = decoded(answer->back());
  if (!message || !std::holds_alternative<ErrorMessage>(*message)) return std::nullopt;
  return std::get<ErrorMessage>(*message);
}

}  // namespace

TEST_CASE("the serving vectors hold a session with answers and requests left unanswered") {
  const std::vector<Exchange> session = static_session();
  REQUIRE(session.size() > 50);
  REQUIRE(session.front().answer);
  const auto handshake = decoded(session.front().answer->back());
  REQUIRE(handshake);
  CHECK(std::holds_alternative<HandshakeMessage>(*handshake));
}

TEST_CASE("the server answers the session's bad frames itself, as the serving vectors say") {
  Server server(fresh_address("ipc"));
  zmq::context_t context;
  zmq::socket_t peer(context, zmq::socket_type::dealer);
  peer.set(zmq::sockopt::linger, 0);
  peer.set(zmq::sockopt::rcvtimeo, 2000);
  peer.connect(server.endpoint());
  std::size_t answered_by_server = 0;
  for (const Exchange& exchange : static_session()) {
    for (std::size_t i = 0; i < exchange.request.size(); ++i) {
      peer.send(zmq::buffer(exchange.request[i]),
                i + 1 < exchange.request.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    }
    std::optional<Request> request;
    try {
      request = server.receive(200ms);
    } catch (const TimeoutError&) {
      // Answered while receiving: a frame no caller ever sees.
    }
    if (request) {
      // A valid request reaches the caller as sent; the simulation's answer is not the server's to give.
      CHECK(request->frame() == exchange.request.back());
      if (!exchange.answer) continue;
      server.reply_frame(*request, exchange.answer->back());
    } else {
      ++answered_by_server;
    }
    REQUIRE(exchange.answer);
    Frames answer;
    zmq::message_t part;
    do {
      REQUIRE(peer.recv(part));
      answer.push_back(part.to_string());
    } while (part.more());
    CHECK(answer == *exchange.answer);
  }
  CHECK(answered_by_server == 6);
}

TEST_CASE("the control layout refuses the Controls the server refuses, with their code and text") {
  const std::vector<Exchange> session = static_session();
  const ControlLayout layout(std::get<HandshakeMessage>(decode(session.front().answer->back())));
  std::vector<double> values(layout.size());
  std::vector<std::uint8_t> values_set(layout.objects().size()), events_set(layout.event_count()),
      events_on(layout.event_count());
  const ControlTargets targets{values.data(), values_set.data(), events_set.data(), events_on.data()};
  std::size_t refused = 0;
  std::size_t read = 0;
  for (const Exchange& exchange : session) {
    if (exchange.request.size() != 2) continue;
    const std::optional<Message> message = decoded(exchange.request.back());
    if (!message || !std::holds_alternative<ControlMessage>(*message)) continue;
    const std::optional<ErrorMessage> error = error_in(exchange.answer);
    if (error && error->code == static_cast<int>(ErrorCode::ControlMismatch)) {
      ++refused;
      try {
        layout.decode(exchange.request.back(), targets);
        FAIL("a Control the server refused was read: " << error->text);
      } catch (const ProtocolError& e) {
        CHECK(static_cast<int>(e.code()) == error->code);
        CHECK(std::string(e.what()) == error->text);
      }
    } else {
      ++read;
      CHECK_NOTHROW(layout.decode(exchange.request.back(), targets));
    }
  }
  CHECK(refused == 6);
  CHECK(read > 30);
}
