// The transport floor for perf.rtt: a plain ZeroMQ REQ/REP ping-pong with
// frames of given sizes, so a coupler round trip can be set against the
// least any round trip of the same sizes costs on this machine.
//
//   zmq_pingpong --role server --addr ADDR --count N --reply-bytes B
//   zmq_pingpong --role client --addr ADDR --count N --request-bytes B [--timings-file PATH]
//
// The client first makes one untimed exchange (connecting, as a coupler
// client's handshake does), then N timed ones; the server answers N + 1
// requests and exits. Every send and receive gives up after --timeout.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <time.h>  // clock_gettime

#include <zmq.hpp>

#include "arguments.hpp"

namespace {

// The process's CPU time, all threads (ZeroMQ's I/O thread too), to the nanosecond: std::clock() is coarser
// on some systems.
double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

using Clock = std::chrono::steady_clock;

enum class Role { server, client };

struct Options {
  std::optional<Role> role;
  std::string address;
  std::uint64_t count = 1000;
  std::size_t request_bytes = 100;
  std::size_t reply_bytes = 100;
  std::string timings_file;
  std::chrono::milliseconds timeout{5000};
};

constexpr const char* kUsage = R"(usage: zmq_pingpong --role server|client --addr ADDR [options]

A plain ZeroMQ REQ/REP ping-pong: the floor a protocol round trip of the same
frame sizes is measured against. The client makes one untimed exchange, then
--count timed ones; the server answers --count + 1 requests and exits.

options:
  --role ROLE           server (binds a REP socket) or client (connects a REQ
                        socket); required
  --addr ADDR           tcp://host:port or ipc://path; required
  --count N             timed round trips (default 1000)
  --request-bytes B     size of each request frame (default 100)
  --reply-bytes B       size of each reply frame (default 100)
  --timings-file PATH   client: write each round trip to PATH, one per line,
                        in microseconds (default: not written)
  --timeout MS          give up when a send or receive takes longer than MS
                        milliseconds (default 5000)
  -h, --help            show this help and exit

The client prints the round trips, round trips per second, p50/p99 and its
CPU time (all threads) per timed round trip.
)";

[[noreturn]] void fail(const std::string& problem) {
  std::cerr << "zmq_pingpong: " << problem << "\n\n" << kUsage;
  std::exit(2);
}

std::uint64_t parse_count(std::string_view flag, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') {
    fail(std::string(flag) + " needs a non-negative whole number, got '" + text + "'");
  }
  return value;
}

Options parse_options(int argc, char** argv) {
  Options options;
  coupler_perf::Arguments arguments(argc, argv, kUsage, fail);
  const auto value = [&arguments] { return arguments.value(); };
  while (arguments.next()) {
    const std::string_view arg = arguments.flag();
    if (arg == "--role") {
      const std::string_view role = value();
      if (role == "server") {
        options.role = Role::server;
      } else if (role == "client") {
        options.role = Role::client;
      } else {
        fail("--role must be server or client, got '" + std::string(role) + "'");
      }
    } else if (arg == "--addr") {
      options.address = value();
    } else if (arg == "--count") {
      options.count = parse_count(arg, value());
    } else if (arg == "--request-bytes") {
      options.request_bytes = parse_count(arg, value());
    } else if (arg == "--reply-bytes") {
      options.reply_bytes = parse_count(arg, value());
    } else if (arg == "--timings-file") {
      options.timings_file = value();
    } else if (arg == "--timeout") {
      options.timeout = std::chrono::milliseconds(parse_count(arg, value()));
    } else {
      arguments.unknown();
    }
  }
  if (!options.role) fail("--role is required");
  if (options.address.empty()) fail("--addr is required");
  if (options.count == 0) fail("--count must be at least 1");
  return options;
}

zmq::socket_t open_socket(zmq::context_t& context, const Options& options) {
  zmq::socket_t socket(context, *options.role == Role::server ? zmq::socket_type::rep : zmq::socket_type::req);
  socket.set(zmq::sockopt::linger, 0);
  socket.set(zmq::sockopt::rcvtimeo, static_cast<int>(options.timeout.count()));
  socket.set(zmq::sockopt::sndtimeo, static_cast<int>(options.timeout.count()));
  return socket;
}

// Receives one frame; throws when nothing came within the socket's timeout.
void receive(zmq::socket_t& socket, zmq::message_t& message, const char* what) {
  if (!socket.recv(message)) throw std::runtime_error(std::string("no ") + what + " within the timeout");
}

void send(zmq::socket_t& socket, const std::vector<std::uint8_t>& frame, const char* what) {
  if (!socket.send(zmq::buffer(frame))) throw std::runtime_error(std::string("could not send the ") + what);
}

// Both sides are told both sizes, so a mismatched pair of commands fails instead of measuring the wrong thing.
void check_size(const zmq::message_t& message, std::size_t expected, const char* what) {
  if (message.size() != expected) {
    throw std::runtime_error(std::string(what) + " has " + std::to_string(message.size()) + " bytes, expected " +
                             std::to_string(expected));
  }
}

int serve(const Options& options) {
  zmq::context_t context;
  zmq::socket_t socket = open_socket(context, options);
  socket.bind(options.address);
  const std::vector<std::uint8_t> reply(options.reply_bytes, 0x5a);
  zmq::message_t request;
  for (std::uint64_t i = 0; i <= options.count; ++i) {
    receive(socket, request, "request");
    check_size(request, options.request_bytes, "request");
    send(socket, reply, "reply");
  }
  return 0;
}

// The fraction-th smallest value (0.5 = median); takes a copy because it reorders.
double percentile(std::vector<double> values, double fraction) {
  const auto rank = static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
  return values[rank];
}

int ping(const Options& options) {
  // Opened first, so a path that cannot be written fails before any work is done.
  std::ofstream timings_file;
  if (!options.timings_file.empty()) {
    timings_file.open(options.timings_file);
    if (!timings_file) throw std::runtime_error("cannot write timings to '" + options.timings_file + "'");
  }
  zmq::context_t context;
  zmq::socket_t socket = open_socket(context, options);
  socket.connect(options.address);
  const std::vector<std::uint8_t> request(options.request_bytes, 0xa5);
  zmq::message_t reply;

  send(socket, request, "request");
  receive(socket, reply, "reply");
  check_size(reply, options.reply_bytes, "reply");

  std::vector<double> round_trips;  // us
  round_trips.reserve(options.count);
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  for (std::uint64_t i = 0; i < options.count; ++i) {
    const auto sent = Clock::now();
    send(socket, request, "request");
    receive(socket, reply, "reply");
    round_trips.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
  }
  const std::chrono::duration<double> total = Clock::now() - start;
  const double cpu_seconds = process_cpu_seconds() - cpu_start;

  if (timings_file.is_open()) {
    for (const double us : round_trips) timings_file << us << '\n';
    timings_file.close();
    if (!timings_file) throw std::runtime_error("writing timings to '" + options.timings_file + "' failed");
  }
  std::cout << std::fixed << std::setprecision(1);
  std::cout << "round trips:             " << round_trips.size() << '\n';
  std::cout << "round trips per second:  " << static_cast<double>(round_trips.size()) / total.count() << '\n';
  std::cout << "round trip p50:          " << percentile(round_trips, 0.50) << " us\n";
  std::cout << "round trip p99:          " << percentile(round_trips, 0.99) << " us\n";
  std::cout << std::setprecision(2) << "client CPU per round trip: " << cpu_seconds / static_cast<double>(options.count) * 1e6 << " us\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  try {
    return *options.role == Role::server ? serve(options) : ping(options);
  } catch (const std::exception& e) {
    std::cerr << "zmq_pingpong: " << e.what() << '\n';
    return 1;
  }
}
