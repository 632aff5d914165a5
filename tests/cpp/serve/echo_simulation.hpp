#pragma once
// What the hot path's tests serve: a simulation whose state is its last controls, read back as they are, and a
// controller greeted as a Click controller's first request is.

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <coupler/serve/control_scatter.hpp>
#include <coupler/serve/hot_path.hpp>
#include <coupler/serve/sensor_gather.hpp>
#include <coupler/serve/stepper.hpp>
#include <coupler/transport/client.hpp>
#include <coupler/transport/server.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/sensor_layout.hpp>

namespace coupler::test {

// The arrays a HotPath reads Controls into and answers from. `state` holds `state_size` numbers that the
// ControlScatter writes (`values` and `events` say where) and the readings copy in order. A body whose pose a
// Control sets (`poses`) writes to `position` and `quaternion`, which start at 9 so that an unwritten one shows.
// It must not move: the HotPath it makes points into it.
struct EchoSimulation {
  EchoSimulation(const HandshakeMessage& handshake, std::size_t state_size, std::vector<ControlScatter::Value> values,
                 std::vector<ControlScatter::Event> events = {}, std::vector<ControlScatter::Pose> poses = {},
                 double max_control = std::numeric_limits<double>::infinity())
      : controls(handshake),
        sensors(handshake),
        values(controls.size()),
        values_set(controls.objects().size()),
        // One place more than there are events, so that the arrays have an address when there are none.
        events_set(controls.event_count() + 1),
        events_on(controls.event_count() + 1),
        state(state_size),
        position(3 * poses.size(), 9.0),
        quaternion(4 * poses.size(), 9.0),
        readings(sensors.size()),
        scatter(state.data(), state.size(), controls.objects().size(), std::move(values), std::move(events),
                {position.data(), position.size(), quaternion.data(), quaternion.size()}, std::move(poses),
                max_control),
        gather(sensors.size()),
        clock(handshake.time_step) {
    std::vector<std::size_t> every(state.size());
    std::iota(every.begin(), every.end(), 0);
    gather.add_copies(state.data(), state.size(), every, every);
  }
  EchoSimulation(const EchoSimulation&) = delete;
  EchoSimulation& operator=(const EchoSimulation&) = delete;

  ControlTargets targets() { return {values.data(), values_set.data(), events_set.data(), events_on.data()}; }

  // A hot path over these arrays that steps `stepper`.
  std::unique_ptr<HotPath> hot_path(Stepper& stepper, HotPathConfig config = {}) {
    return std::make_unique<HotPath>(controls, targets(), sensors, readings.data(), scatter, gather, stepper, config);
  }

  ControlLayout controls;
  SensorLayout sensors;
  std::vector<double> values;
  std::vector<std::uint8_t> values_set, events_set, events_on;
  std::vector<double> state, position, quaternion, readings;
  ControlScatter scatter;
  SensorGather gather;
  CountedSteps clock;
};

// Greets `client` as a controller's first request does and answers with `handshake`: the peer `server` knows the
// client by.
inline std::string greeted_peer(Server& server, Client& client, const HandshakeMessage& handshake) {
  using namespace std::chrono_literals;
  client.send(HandshakeInitMessage{});
  const Request hello = server.receive(2000ms);
  server.reply(hello, handshake);
  (void)client.receive();
  return hello.peer();
}

// A simulation whose every step fails.
class FailingStepper final : public Stepper {
 public:
  explicit FailingStepper(std::string text = "the physics diverged") : text_(std::move(text)) {}
  void step(std::uint64_t) override { throw std::runtime_error(text_); }
  double time() const override { return 0.0; }

 private:
  std::string text_;
};

}  // namespace coupler::test
