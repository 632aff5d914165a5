#pragma once
// A raw REQ peer, free to send what no coupler client would.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <zmq.hpp>

#include <coupler/wire/codec.hpp>

class RawPeer {
 public:
  explicit RawPeer(const std::string& address) : socket_(context_, zmq::socket_type::req) {
    socket_.set(zmq::sockopt::linger, 0);
    socket_.set(zmq::sockopt::rcvtimeo, 2000);
    socket_.connect(address);
  }
  // Sends `frames` as the parts of one message.
  void send(const std::vector<std::string>& frames) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
      socket_.send(zmq::buffer(frames[i]), i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    }
  }
  void send(const std::string& frame) { send(std::vector<std::string>{frame}); }
  coupler::Message receive() {
    zmq::message_t frame;
    REQUIRE(socket_.recv(frame));
    return coupler::decode(frame.to_string_view());
  }

 private:
  zmq::context_t context_;
  zmq::socket_t socket_;
};
