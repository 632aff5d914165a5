// Demo controller: handshake, check the scene, drive the arm above the box
// when the scene has one, then time --range more Control round trips.

#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <vector>

#include <time.h>  // clock_gettime

#include <coupler/coupler.hpp>

#include "find_red.hpp"
#include "options.hpp"
#include "pick_approach.hpp"
#include "world_images.hpp"

namespace {

// The process's CPU time, all threads (ZeroMQ's I/O thread too), to the nanosecond: std::clock() is coarser
// on some systems.
double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

using Clock = std::chrono::steady_clock;

bool controllable(coupler::ValueType type) {
  using coupler::ValueType;
  return type == ValueType::Angle || type == ValueType::AngularVelocity1D || type == ValueType::Torque1D ||
         type == ValueType::Force1D || type == ValueType::LinearPosition || type == ValueType::LinearVelocity ||
         type == ValueType::ActuatorInput;
}

// Throws coupler::Error naming the first thing in the handshake a controller cannot use.
void check_handshake(const coupler::HandshakeMessage& handshake) {
  for (const auto& [name, object] : handshake.objects) {
    if (object.controls.size() != object.control_types.size()) {
      throw coupler::Error("object '" + name + "' names " + std::to_string(object.controls.size()) +
                           " controls but gives " + std::to_string(object.control_types.size()) + " types");
    }
    for (std::size_t i = 0; i < object.controls.size(); ++i) {
      if (!controllable(object.control_types[i])) {
        throw coupler::Error("control '" + object.controls[i] + "' of '" + name + "' has type " +
                             std::string(coupler::to_string(object.control_types[i])) +
                             ", which is not a control type");
      }
    }
    for (const auto& [event, type] : object.control_events) {
      if (type != coupler::ValueType::Activated) throw coupler::Error("event '" + event + "' is not an Activated event");
    }
  }
}

int run(const Options& options) {
  coupler::SessionOptions session_options;
  session_options.client.timeout = options.timeout;
  session_options.client.heartbeat_interval = std::chrono::milliseconds(std::llround(options.heartbeat * 1000));
  session_options.client.heartbeat_timeout = 3 * session_options.client.heartbeat_interval;
  session_options.client.max_frame_bytes = options.max_frame_bytes;
  if (!options.curve_server_key.empty()) {
    session_options.client.curve_server_key = coupler::load_curve_public_key(options.curve_server_key);
    session_options.client.curve_key_pair = coupler::load_curve_key_pair(options.curve_key);
  }
  session_options.polling = !options.blocking_receive;
  session_options.shared_channel = options.shared_channel;
  if (options.trace) {
    session_options.trace = [](std::string_view direction, const coupler::Message& message) {
      std::cout << direction << ": " << coupler::describe(message) << '\n';
    };
  }
  // Opened first, so a path that cannot be written fails before connecting.
  std::ofstream timings_file;
  std::vector<double> step_times;  // us
  if (!options.timings_file.empty()) {
    timings_file.open(options.timings_file);
    if (!timings_file) throw coupler::Error("cannot write timings to '" + options.timings_file + "'");
    step_times.reserve(options.range + 1);
  }

  std::cout << "connecting to " << options.address << '\n';
  if (!options.worlds_images.empty()) {
    std::cout << world_images(options.address, session_options, options.worlds_images) << '\n';
    return 0;
  }
  coupler::Session session(options.address, session_options);
  const coupler::HandshakeMessage& handshake = session.handshake();
  check_handshake(handshake);
  std::cout << "handshake: " << handshake.objects.size() << " objects, time step " << handshake.time_step << " s\n";
  if (!options.find_red.empty()) {
    std::cout << find_red(session, options.find_red) << '\n';
    return 0;
  }

  coupler::Controls controls = session.controls();
  if (const auto arm = find_arm(handshake)) PickApproach(session, *arm).run(controls).print(std::cout);

  session.stats().clear();  // timings cover the round trips below only
  double simulated_time = 0.0;
  std::uint64_t resets = 0;
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  for (std::uint64_t i = 0; i <= options.range; ++i) {
    const auto step_start = Clock::now();
    const coupler::SensorReadings readings = session.step(controls);
    if (timings_file.is_open()) {
      step_times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - step_start).count());
    }
    simulated_time = readings.time();
    resets += readings.after_reset();
  }
  const std::chrono::duration<double> total = Clock::now() - start;
  const double cpu_seconds = process_cpu_seconds() - cpu_start;
  if (timings_file.is_open()) {
    for (const double us : step_times) timings_file << us << '\n';
    timings_file.close();
    if (!timings_file) throw coupler::Error("writing timings to '" + options.timings_file + "' failed");
  }
  std::cout << "controls sent: " << options.range + 1 << ", resets seen: " << resets
            << ", simulated time: " << simulated_time << " s\n";
  if (options.timings) {
    std::cout << session.stats().report(total, session_options.polling) << '\n';
    std::cout << std::fixed << std::setprecision(2) << "client CPU per round trip: " << cpu_seconds / static_cast<double>(options.range + 1) * 1e6
              << " us\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  try {
    return run(options);
  } catch (const coupler::Error& e) {
    std::cerr << "democlient: " << e.what() << '\n';
    return 1;
  }
}
