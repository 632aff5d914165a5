// The least a coupler server could cost: a ZeroMQ ROUTER socket answering
// each request with a frame recorded from a real server, no decoding, no
// simulation. perf.rtt drives it with the same clients as coupler's server,
// so the client's share and the server's share of a round trip show apart.
//
//   recorded_server --addr ADDR --handshake PATH --reset PATH --sensor PATH [--poll-ms MS]
//
// A HandshakeInit (message type 0) is answered with the recorded Handshake,
// a Reset (4) with the recorded Reset, a Control (2) or SensorRequest (6)
// with the recorded Sensor; a goodbye
// (an Error, 5) gets no answer, as a coupler server gives none. It serves
// until SIGINT or SIGTERM, then prints the requests it answered.

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <zmq.hpp>

#include "arguments.hpp"

namespace {

constexpr const char* kUsage =
    R"(usage: recorded_server --addr ADDR --handshake PATH --reset PATH --sensor PATH [options]

A ROUTER server that answers every HandshakeInit with the Handshake frame in
--handshake, every Reset with the frame in --reset and every Control or
SensorRequest with the Sensor frame in --sensor (all recorded from a coupler
server), without decoding them: the
floor a protocol server's round trip is measured against. It serves until
SIGINT or SIGTERM and then prints "requests answered: N".

options:
  --addr ADDR        tcp://host:port or ipc://path to bind; required
  --handshake PATH   the recorded Handshake frame; required
  --reset PATH       the recorded answer to a Reset; required
  --sensor PATH      the recorded Sensor frame; required
  --poll-ms MS       how often a blocked receive wakes to check for a signal
                     (default 200)
  -h, --help         show this help and exit
)";

std::atomic<bool> stop_requested{false};

// One part of a request, or nothing when the receive timed out or a signal interrupted it.
bool receive_part(zmq::socket_t& socket, zmq::message_t& part) {
  try {
    return socket.recv(part).has_value();
  } catch (const zmq::error_t& error) {
    if (error.num() == EINTR) return false;
    throw;
  }
}

extern "C" void request_stop(int) { stop_requested = true; }

[[noreturn]] void fail(const std::string& problem) {
  std::cerr << "recorded_server: " << problem << "\n\n" << kUsage;
  std::exit(2);
}

struct Options {
  std::string address;
  std::string handshake_path;
  std::string reset_path;
  std::string sensor_path;
  int poll_ms = 200;
};

Options parse_options(int argc, char** argv) {
  Options options;
  coupler_perf::Arguments arguments(argc, argv, kUsage, fail);
  while (arguments.next()) {
    const std::string_view arg = arguments.flag();
    if (arg == "--addr") {
      options.address = arguments.value();
    } else if (arg == "--handshake") {
      options.handshake_path = arguments.value();
    } else if (arg == "--reset") {
      options.reset_path = arguments.value();
    } else if (arg == "--sensor") {
      options.sensor_path = arguments.value();
    } else if (arg == "--poll-ms") {
      const char* text = arguments.value();
      char* end = nullptr;
      errno = 0;
      const long ms = std::strtol(text, &end, 10);
      if (errno != 0 || end == text || *end != '\0' || ms < 1 || ms > 60000) {
        fail("--poll-ms needs a whole number from 1 to 60000, got '" + std::string(text) + "'");
      }
      options.poll_ms = static_cast<int>(ms);
    } else {
      arguments.unknown();
    }
  }
  if (options.address.empty()) fail("--addr is required");
  if (options.handshake_path.empty()) fail("--handshake is required");
  if (options.reset_path.empty()) fail("--reset is required");
  if (options.sensor_path.empty()) fail("--sensor is required");
  return options;
}

std::vector<std::uint8_t> read_frame(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read the recorded frame '" + path + "'");
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Field 1 of every coupler message is its type; proto3 leaves out a zero, so a frame
// that does not start with field 1 is a HandshakeInit.
int message_type(const zmq::message_t& frame) {
  const auto* bytes = static_cast<const std::uint8_t*>(frame.data());
  if (frame.size() >= 2 && bytes[0] == 0x08 && bytes[1] < 0x80) return bytes[1];
  return 0;
}

int serve(const Options& options) {
  const std::vector<std::uint8_t> handshake = read_frame(options.handshake_path);
  const std::vector<std::uint8_t> reset = read_frame(options.reset_path);
  const std::vector<std::uint8_t> sensor = read_frame(options.sensor_path);
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::router);
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::rcvtimeo, options.poll_ms);
  socket.bind(options.address);

  std::uint64_t answered = 0;
  std::vector<zmq::message_t> envelope;  // routing id, then the REQ socket's empty delimiter
  zmq::message_t part;
  while (!stop_requested) {
    envelope.clear();
    bool more = true;
    while (more) {
      if (!receive_part(socket, part)) {
        if (envelope.empty() || stop_requested) break;  // the wake-up to check for a signal
        throw std::runtime_error("a request's frames stopped arriving part-way");
      }
      more = part.more();
      envelope.emplace_back(std::move(part));
    }
    if (envelope.size() < 2) continue;
    const int type = message_type(envelope.back());
    if (type == 5) continue;  // a goodbye: nobody waits for an answer
    const auto& reply = type == 0 ? handshake : type == 4 ? reset : sensor;
    for (std::size_t i = 0; i + 1 < envelope.size(); ++i) socket.send(envelope[i], zmq::send_flags::sndmore);
    socket.send(zmq::buffer(reply), zmq::send_flags::none);
    ++answered;
  }
  std::cout << "requests answered: " << answered << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  try {
    return serve(options);
  } catch (const std::exception& e) {
    std::cerr << "recorded_server: " << e.what() << '\n';
    return 1;
  }
}
