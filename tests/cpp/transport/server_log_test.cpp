// Peers choose how many bad frames they send: a server without on_bad_frame
// writes at most 10 lines a minute about them to std::clog.

#include <catch2/catch.hpp>

#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include <zmq.hpp>

#include <coupler/wire/codec.hpp>
#include <coupler/transport/server.hpp>

#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// Sends std::clog to a string while it lives.
class CapturedClog {
 public:
  CapturedClog() : previous_(std::clog.rdbuf(captured_.rdbuf())) {}
  ~CapturedClog() { std::clog.rdbuf(previous_); }
  CapturedClog(const CapturedClog&) = delete;
  CapturedClog& operator=(const CapturedClog&) = delete;
  std::string text() const { return captured_.str(); }

 private:
  std::ostringstream captured_;
  std::streambuf* previous_;
};

std::size_t lines_in(const std::string& text) {
  std::size_t lines = 0;
  for (const char c : text) lines += c == '\n';
  return lines;
}

}  // namespace

TEST_CASE("a flood of bad frames writes at most 10 lines to std::clog, and each is still answered") {
  CapturedClog clog;
  Server server(fresh_address("tcp"));
  zmq::context_t context;
  zmq::socket_t dealer(context, zmq::socket_type::dealer);  // no REQ delimiter: every frame is a bad one
  dealer.set(zmq::sockopt::linger, 0);
  dealer.set(zmq::sockopt::rcvtimeo, 2000);
  dealer.connect(server.endpoint());

  constexpr int kFrames = 200;
  for (int i = 0; i < kFrames; ++i) {
    dealer.send(zmq::buffer(encode(HandshakeInitMessage{})), zmq::send_flags::none);
    zmq::message_t answer;
    bool answered = false;
    for (int tries = 0; tries < 2000 && !answered; ++tries) {  // bounded: 2 s at most
      CHECK_FALSE(server.try_receive().has_value());  // a bad frame is answered inside, never handed to the caller
      answered = dealer.recv(answer, zmq::recv_flags::dontwait).has_value();
      if (!answered) std::this_thread::sleep_for(1ms);
    }
    REQUIRE(answered);
  }
  CHECK(server.bad_frames() == kFrames);
  CHECK(lines_in(clog.text()) == 10);
  CHECK_THAT(clog.text(), Catch::Contains("no empty delimiter"));
}
