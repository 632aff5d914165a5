// A lone Control -> Sensor round trip through shared memory (coupler's
// SharedChannel: a memfd, futex wake-ups, no spinning), for perf.floor.shm:
// set against the ZeroMQ ipc floor (zmq_pingpong) measured in the same run.
//
//   shm_round_trip --role server --handshake PATH --sensor PATH --path-file PATH
//   shm_round_trip --role client --path-file PATH --count N [--timings-file PATH]
//
// The server answers a HandshakeInit with the recorded Handshake and a Control
// or SensorRequest with the recorded Sensor frame, as recorded_server does; it
// writes the channel's path to --path-file and serves until SIGINT or SIGTERM.
// The client is coupler's C++ client side: it decodes the handshake, sends
// the hold-still Control that Controls encodes, and reads each answer into
// numbers through the handshake's SensorLayout, as Session::step does.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <time.h>

#include <coupler/controller/controls.hpp>
#include <coupler/transport/shared_channel.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/sensor_layout.hpp>

#include "arguments.hpp"

namespace {

constexpr const char* kUsage = R"(usage: shm_round_trip --role server|client --path-file PATH [options]

A lone Control -> Sensor round trip through shared memory with futex
wake-ups. The server answers recorded frames; the client sends the
hold-still Control of the recorded handshake and reads each answer through
its sensor layout, one untimed exchange (the handshake), then --count timed.

options:
  --role ROLE          server or client; required
  --path-file PATH     where the server writes the channel's path and the
                       client reads it; required
  --handshake PATH     server: the recorded Handshake frame
  --sensor PATH        server: the recorded Sensor frame
  --count N            client: timed round trips (default 1000)
  --timings-file PATH  client: each round trip in microseconds, one a line
  --timeout MS         client: give up on an answer after MS ms (default 5000)
  -h, --help           show this help and exit
)";

std::atomic<bool> stop_requested{false};
extern "C" void request_stop(int) { stop_requested = true; }

[[noreturn]] void fail(const std::string& problem) {
  std::cerr << "shm_round_trip: " << problem << "\n\n" << kUsage;
  std::exit(2);
}

struct Options {
  std::string role;
  std::string path_file;
  std::string handshake_path;
  std::string sensor_path;
  std::uint64_t count = 1000;
  std::string timings_file;
  std::chrono::milliseconds timeout{5000};
};

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
  while (arguments.next()) {
    const std::string_view arg = arguments.flag();
    if (arg == "--role") options.role = arguments.value();
    else if (arg == "--path-file") options.path_file = arguments.value();
    else if (arg == "--handshake") options.handshake_path = arguments.value();
    else if (arg == "--sensor") options.sensor_path = arguments.value();
    else if (arg == "--count") options.count = parse_count(arg, arguments.value());
    else if (arg == "--timings-file") options.timings_file = arguments.value();
    else if (arg == "--timeout") options.timeout = std::chrono::milliseconds(parse_count(arg, arguments.value()));
    else arguments.unknown();
  }
  if (options.role != "server" && options.role != "client") fail("--role must be server or client");
  if (options.path_file.empty()) fail("--path-file is required");
  if (options.role == "server" && (options.handshake_path.empty() || options.sensor_path.empty())) {
    fail("the server needs --handshake and --sensor");
  }
  if (options.count == 0) fail("--count must be at least 1");
  return options;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read '" + path + "'");
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Field 1 of every coupler message is its type; proto3 leaves out a zero (a HandshakeInit).
int message_type(std::string_view frame) {
  if (frame.size() >= 2 && frame[0] == 0x08 && static_cast<unsigned char>(frame[1]) < 0x80) return frame[1];
  return 0;
}

int serve(const Options& options) {
  const std::string handshake = read_file(options.handshake_path);
  const std::string sensor = read_file(options.sensor_path);
  coupler::SharedChannelServer channel(std::max<std::size_t>(65536, handshake.size()));
  {
    std::ofstream out(options.path_file + ".part");
    out << channel.path() << '\n';
  }
  std::rename((options.path_file + ".part").c_str(), options.path_file.c_str());
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  std::uint64_t answered = 0;
  while (!stop_requested) {
    // Asleep in futex(2) between requests: waking 5 times a second to see a signal costs nothing measurable.
    const auto request = channel.receive(std::chrono::milliseconds(200));
    if (!request) continue;
    channel.reply(message_type(*request) == 0 ? handshake : sensor);
    ++answered;
  }
  std::cout << "requests answered: " << answered << '\n';
  return 0;
}

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

double percentile(std::vector<double> values, double fraction) {
  const auto rank = static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank), values.end());
  return values[rank];
}

int ping(const Options& options) {
  std::ofstream timings_file;
  if (!options.timings_file.empty()) {
    timings_file.open(options.timings_file);
    if (!timings_file) throw std::runtime_error("cannot write timings to '" + options.timings_file + "'");
  }
  std::string path = read_file(options.path_file);
  path.erase(path.find_last_not_of('\n') + 1);
  coupler::SharedChannelClient channel(path);
  const coupler::Message answer = coupler::decode(channel.exchange(coupler::encode(coupler::HandshakeInitMessage{}),
                                                                   options.timeout));
  const auto* handshake = std::get_if<coupler::HandshakeMessage>(&answer);
  if (handshake == nullptr) throw std::runtime_error("the server answered the HandshakeInit with no Handshake");
  const coupler::Controls controls(*handshake);
  const std::string control = coupler::encode(controls.message());
  coupler::SensorLayout layout(*handshake);
  std::vector<double> values(layout.size());

  std::vector<double> round_trips;
  round_trips.reserve(options.count);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  for (std::uint64_t i = 0; i < options.count; ++i) {
    const auto sent = Clock::now();
    if (!layout.read(channel.exchange(control, options.timeout), values.data())) {
      throw std::runtime_error("an answer is not a Sensor frame of the handshake's shape");
    }
    round_trips.push_back(std::chrono::duration<double, std::micro>(Clock::now() - sent).count());
  }
  const std::chrono::duration<double> total = Clock::now() - start;
  const double cpu_seconds = process_cpu_seconds() - cpu_start;
  if (timings_file.is_open()) {
    for (const double us : round_trips) timings_file << us << '\n';
  }
  std::cout << std::fixed << std::setprecision(1);
  std::cout << "round trips:             " << round_trips.size() << '\n';
  std::cout << "round trips per second:  " << static_cast<double>(round_trips.size()) / total.count() << '\n';
  std::cout << "round trip p50:          " << percentile(round_trips, 0.50) << " us\n";
  std::cout << "round trip p99:          " << percentile(round_trips, 0.99) << " us\n";
  std::cout << std::setprecision(2) << "client CPU per round trip: "
            << cpu_seconds / static_cast<double>(options.count) * 1e6 << " us\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  try {
    return options.role == "server" ? serve(options) : ping(options);
  } catch (const std::exception& e) {
    std::cerr << "shm_round_trip: " << e.what() << '\n';
    return 1;
  }
}
