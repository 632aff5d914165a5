#include <coupler/hot_path.hpp>

#include <cmath>
#include <exception>
#include <utility>
#include <variant>

#include <coupler/codec.hpp>
#include <coupler/error.hpp>

namespace coupler {

HotPath::HotPath(const ControlLayout& controls, ControlTargets targets, SensorLayout& sensors,
                 double* sensor_values, const ControlScatter& scatter, const SensorGather& gather, Stepper& stepper,
                 HotPathConfig config)
    : controls_(controls),
      targets_(targets),
      sensors_(sensors),
      sensor_values_(sensor_values),
      scatter_(scatter),
      gather_(gather),
      stepper_(stepper),
      config_(config),
      clamped_before_(scatter.value_count(), false) {
  if (scatter.value_count() != controls.size() || scatter.object_count() != controls.objects().size() ||
      scatter.event_count() != controls.event_count()) {
    throw Error("the hot path's scatter does not take the arrays of its control layout");
  }
  if (gather.size() != sensors.size()) throw Error("the hot path's gather does not fill the arrays of its sensor layout");
  if (!targets.values || !targets.values_set || !targets.events_set || !targets.events_on || !sensor_values) {
    throw Error("the hot path needs its control and sensor arrays");
  }
}

HotPathOutcome HotPath::run(Server& server, const std::string& peer, std::chrono::milliseconds return_after) {
  using Clock = std::chrono::steady_clock;
  HotPathOutcome outcome;
  const auto deadline = Clock::now() + return_after;
  Clock::time_point last_control{};
  stepper_.assume_settled();
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    std::optional<Request> request;
    try {
      request = server.receive(left);
    } catch (const TimeoutError&) {
      break;
    }
    const auto* control = std::get_if<ControlMessage>(&request->message());
    if (control == nullptr || request->peer() != peer || !serve(server, *request, *control, outcome)) {
      outcome.request = std::move(request);
      break;
    }
    last_control = Clock::now();
    if (!outcome.failure.empty() || !outcome.first_clamped.empty()) break;
    if (outcome.simulated_time && *outcome.simulated_time >= config_.stop_after) break;
  }
  if (outcome.controls > 0) outcome.since_last_control = Clock::now() - last_control;
  return outcome;
}

bool HotPath::serve(Server& server, const Request& request, const ControlMessage& control, HotPathOutcome& outcome) {
  if (control.steps > config_.max_steps) return false;
  try {
    controls_.read(control, targets_);
  } catch (const ProtocolError&) {
    return false;  // the caller refuses it, naming the problem
  }
  for (std::size_t i = 0; i < controls_.size(); ++i) {
    if (std::fabs(targets_.values[i]) > config_.largest_value) return false;
  }
  const std::uint64_t steps = control.steps == 0 ? 1 : control.steps;
  try {
    const std::vector<std::size_t> outside =
        scatter_.apply(targets_.values, targets_.values_set, targets_.events_set, targets_.events_on);
    outcome.clamped += outside.size();
    for (const std::size_t i : outside) {
      if (!clamped_before_[i]) {
        clamped_before_[i] = true;
        outcome.first_clamped.push_back(i);
      }
    }
    stepper_.step(steps);
    stepper_.settle();
    gather_.gather(sensor_values_);
    const double time = stepper_.time();
    ++outcome.controls;
    outcome.steps += steps;
    outcome.simulated_time = time;
    server.reply_frame(request, sensors_.encode(sensor_values_, time));
  } catch (const std::exception& e) {
    outcome.failure = e.what();
  } catch (...) {
    outcome.failure = "unknown exception";
  }
  if (!outcome.failure.empty()) {
    server.reply(request, ErrorMessage{static_cast<int>(ErrorCode::InternalError), "internal error: " + outcome.failure});
  }
  return true;
}

}  // namespace coupler
