#include "serve/serve_vectors.hpp"

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <variant>

#include <catch2/catch.hpp>
#include <zmq.hpp>

#include <coupler/transport/server.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

#include "test_endpoints.hpp"

namespace coupler::test {

namespace {

using namespace std::chrono_literals;

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

}  // namespace

std::vector<Exchange> serving_vectors(const std::string& name) {
  return SessionFile(std::string(COUPLER_VECTORS_DIR) + "/serve/" + name + "_session.bin").exchanges();
}

std::optional<Message> decoded(const std::string& frame) {
  try {
    return decode(frame);
  } catch (const ProtocolError&) {
    return std::nullopt;
  }
}

std::optional<ErrorMessage> error_in(const std::optional<Frames>& answer) {
  if (!answer || answer->size() != 2) return std::nullopt;
  const std::optional<Message> message = decoded(answer->back());
  if (!message || !std::holds_alternative<ErrorMessage>(*message)) return std::nullopt;
  return std::get<ErrorMessage>(*message);
}

std::size_t answered_by_server(const std::vector<Exchange>& session) {
  Server server(fresh_address("ipc"));
  zmq::context_t context;
  zmq::socket_t peer(context, zmq::socket_type::dealer);
  peer.set(zmq::sockopt::linger, 0);
  peer.set(zmq::sockopt::rcvtimeo, 2000);
  peer.connect(server.endpoint());
  std::size_t answered = 0;
  for (const Exchange& exchange : session) {
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
      ++answered;
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
  return answered;
}

}  // namespace coupler::test
