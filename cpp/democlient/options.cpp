#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <iostream>
#include <string_view>

namespace {

// A bound as the help shows it: 0.001, 86400.
std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

const std::string kUsage = std::string(R"(usage: democlient [options]

Connects to a coupler or Click simulation server, does the handshake, checks
it, and sends Control messages that match the scene it describes.

options:
  --addr ADDR         server address: tcp://host:port, ipc://path or
                      inproc://name (default )") + coupler::limits::kDefaultAddress + R"()
  --range N           extra Control round trips after the first, at most
                      )" + std::to_string(coupler::limits::kMaxRange) + R"( (default 0)
  --timings           print time blocked in receive, time between send and
                      reply, total time, round trips per second and p50/p99
                      round-trip time
  --timings-file PATH write each --range round trip (the first included) to
                      PATH, one per line, in microseconds, timed around the
                      whole step: send, wait, decode (default: not written)
  --blocking-receive  wait for each reply in a blocking receive (default:
                      non-blocking polling that sleeps in zmq_poll between
                      attempts instead of spinning)
  --shared-channel    at an ipc:// or inproc:// address, lease the server's
                      shared channel: Controls and reads after the first
                      step go through shared memory with futex wake-ups
                      instead of the socket (default: through the socket)
  --trace             print every message sent and received
  --find-red CAMERA   instead of driving the scene, ask CAMERA (the "images"
                      extension) for a colour and a depth image and print
                      where it sees red: the red pixels' centre, the depth
                      there, and that point back-projected with the
                      handshake's intrinsics into the world (a camera mounted
                      on the world body) (default: drive the scene)
  --worlds-images CAMERA
                      instead of driving the scene, ask a batched server
                      (coupler serve --worlds N) for every kind of image
                      CAMERA renders, in every world, stepping none, and
                      print per world its time and each picture's size and
                      FNV-1a 64 hash (default: drive the scene)
  --timeout SECONDS   give up when the server does not answer within this
                      many seconds, from )" + number(coupler::limits::kMinTimeoutSeconds) + " to " +
                             number(coupler::limits::kMaxTimeoutSeconds) + R"( (default )" +
                             std::to_string(coupler::limits::kRequestTimeout.count() / 1000) + R"()
  --curve-server-key PATH
                      the server's public NAME.key: connect with CurveZMQ
                      encryption and authentication; needs --curve-key
                      (default: plain TCP)
  --curve-key PATH    this client's own NAME.key_secret (made by `coupler
                      keygen`; its .key must be in the server's --curve-allow
                      directory); needs --curve-server-key
  --heartbeat SECONDS send a ZMTP heartbeat after this much silence and drop
                      the connection when the server sends nothing for )" +
                             std::to_string(coupler::limits::kHeartbeatTimeoutIntervals) + R"(
                      times as long, so a dead server is noticed; from
                      )" + number(coupler::limits::kMinHeartbeatSeconds) + " to " +
                             number(coupler::limits::kMaxHeartbeatSeconds) + R"(, 0 turns heartbeats off (default )" +
                             std::to_string(coupler::limits::kHeartbeatInterval.count() / 1000) + R"()
  --max-frame-bytes N largest frame accepted from the server; a larger one
                      is never decoded, ZeroMQ drops the connection instead;
                      at most )" + std::to_string(coupler::limits::kLargestFrameLimit) +
                             R"(, 0 means no limit (default )" +
                             std::to_string(coupler::limits::kMaxFrameBytes) + R"()
  -h, --help          show this help and exit
)";

[[noreturn]] void fail(const std::string& problem) {
  // One line, like the Python tools' errors; the flags are one --help away.
  std::cerr << "democlient: " << problem << " (democlient --help lists the flags)\n";
  std::exit(2);
}

using coupler::limits::kLargestFrameLimit;
using coupler::limits::kMaxHeartbeatSeconds;
using coupler::limits::kMaxRange;
using coupler::limits::kMaxTimeoutSeconds;
using coupler::limits::kMinHeartbeatSeconds;
using coupler::limits::kMinTimeoutSeconds;

// A value echoed in an error is cut short: the message stays one readable line.
std::string shown(const char* text) {
  const std::string value(text);
  return value.size() <= 40 ? value : value.substr(0, 40) + "...";
}

std::uint64_t parse_count(std::string_view flag, const char* text, std::uint64_t max) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || value > max) {
    fail(std::string(flag) + " needs a whole number from 0 to " + std::to_string(max) + ", got '" + shown(text) +
         "'");
  }
  return value;
}

// `zero_allowed`: 0 is accepted besides [min, max] (it turns the feature off).
double parse_seconds(std::string_view flag, const char* text, double min, double max, bool zero_allowed) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  const bool in_range = (value >= min && value <= max) || (zero_allowed && value == 0.0);
  if (errno != 0 || end == text || *end != '\0' || !std::isfinite(value) || !in_range) {
    std::ostringstream wanted;
    wanted << (zero_allowed ? "0 or " : "") << "from " << min << " to " << max;
    fail(std::string(flag) + " needs a number of seconds, " + wanted.str() + ", got '" + shown(text) + "'");
  }
  return value;
}

}  // namespace

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) fail(std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--addr") {
      options.address = value();
    } else if (arg == "--range") {
      options.range = parse_count(arg, value(), kMaxRange);
    } else if (arg == "--timings") {
      options.timings = true;
    } else if (arg == "--timings-file") {
      options.timings_file = value();
    } else if (arg == "--blocking-receive") {
      options.blocking_receive = true;
    } else if (arg == "--shared-channel") {
      options.shared_channel = true;
    } else if (arg == "--find-red") {
      options.find_red = value();
    } else if (arg == "--worlds-images") {
      options.worlds_images = value();
    } else if (arg == "--trace") {
      options.trace = true;
    } else if (arg == "--timeout") {
      const double seconds = parse_seconds(arg, value(), kMinTimeoutSeconds, kMaxTimeoutSeconds, false);
      options.timeout = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000.0)));
    } else if (arg == "--curve-server-key") {
      options.curve_server_key = value();
    } else if (arg == "--curve-key") {
      options.curve_key = value();
    } else if (arg == "--heartbeat") {
      options.heartbeat = parse_seconds(arg, value(), kMinHeartbeatSeconds, kMaxHeartbeatSeconds, true);
    } else if (arg == "--max-frame-bytes") {
      options.max_frame_bytes =
          static_cast<std::int64_t>(parse_count(arg, value(), static_cast<std::uint64_t>(kLargestFrameLimit)));
    } else {
      fail("unknown option '" + std::string(arg) + "'");
    }
  }
  if (options.curve_server_key.empty() != options.curve_key.empty()) {
    fail("--curve-server-key and --curve-key go together: the server's public key and this client's key pair");
  }
  return options;
}
