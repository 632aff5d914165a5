#include <coupler/hot_path.hpp>

#include <cmath>
#include <exception>
#include <utility>
#include <variant>

#include "control_frame_reader.hpp"

#include <coupler/codec.hpp>
#include <coupler/error.hpp>

namespace coupler {
namespace {

// The recording's channels (coupler.record.channels) of what the hot path answers.
constexpr std::string_view kControlTopic = "/coupler/requests/Control";
constexpr std::string_view kSensorTopic = "/coupler/answers/Sensor";
constexpr std::string_view kErrorTopic = "/coupler/answers/Error";
constexpr std::string_view kStateTopic = "/coupler/mujoco_state";

}  // namespace

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
      reader_(std::make_unique<detail::ControlFrameReader>(controls)),
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

HotPath::~HotPath() = default;

void HotPath::publish_to(FramePublisher& publisher, std::optional<MujocoStateArrays> state) {
  publisher_ = &publisher;
  state_ = state;
}

void HotPath::publish(const Published& exchange) {
  publisher_->publish(kControlTopic, exchange.request, exchange.request_wall_ns, FramePublisher::kNoTime);
  if (exchange.stepped && state_) {
    encode_mujoco_state(exchange.time, exchange.step, *state_, state_frame_);
    publisher_->publish(kStateTopic, state_frame_, wall_clock_nanoseconds(), header_nanoseconds(exchange.time));
  }
  publisher_->publish(exchange.stepped ? kSensorTopic : kErrorTopic, exchange.answer, wall_clock_nanoseconds(),
                      exchange.stepped ? header_nanoseconds(exchange.time) : FramePublisher::kNoTime);
}

HotPathOutcome HotPath::run(Server& server, const std::string& peer, std::chrono::milliseconds return_after,
                            std::uint64_t steps_before) {
  using Clock = std::chrono::steady_clock;
  HotPathOutcome outcome;
  Published exchange;
  const auto deadline = Clock::now() + return_after;
  Clock::time_point last_control{};
  stepper_.assume_settled();
  const Server::Answerer answer = [&](const std::string& from, std::string_view payload) -> std::optional<std::string> {
    std::uint64_t steps = 0;
    if (from != peer || !reader_->read(payload, targets_, config_.max_steps, steps)) return std::nullopt;
    for (std::size_t i = 0; i < controls_.size(); ++i) {
      if (std::fabs(targets_.values[i]) > config_.largest_value) return std::nullopt;
    }
    last_control = Clock::now();
    if (publisher_) {
      exchange.request.assign(payload.data(), payload.size());
      exchange.request_wall_ns = wall_clock_nanoseconds();
    }
    std::string frame = serve(steps == 0 ? 1 : steps, outcome);
    outcome.request_bytes = payload.size();
    outcome.answer_bytes = frame.size();
    if (publisher_) {
      // Published once the answer is sent, so the controller does not wait for it; the state read now is still
      // the one after this step, since nothing steps before then.
      exchange.answer = frame;
      exchange.stepped = outcome.failure.empty();
      exchange.step = steps_before + outcome.steps;
      exchange.time = outcome.simulated_time.value_or(0.0);
    }
    return frame;
  };
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    Offered offered = server.receive_offering(left, answer);
    if (offered.request) {
      outcome.request = std::move(offered.request);
      break;
    }
    if (!offered.answered) break;  // the time ran out
    if (publisher_) publish(exchange);
    if (!outcome.failure.empty() || !outcome.first_clamped.empty()) break;
    if (outcome.simulated_time && *outcome.simulated_time >= config_.stop_after) break;
  }
  if (outcome.controls > 0) outcome.since_last_control = Clock::now() - last_control;
  return outcome;
}

std::string HotPath::serve(std::uint64_t steps, HotPathOutcome& outcome) {
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
    std::string frame = sensors_.encode(sensor_values_, time);
    ++outcome.controls;
    outcome.steps += steps;
    outcome.simulated_time = time;
    return frame;
  } catch (const std::exception& e) {
    outcome.failure = e.what();
  } catch (...) {
    outcome.failure = "unknown exception";
  }
  return encode(ErrorMessage{static_cast<int>(ErrorCode::InternalError), "internal error: " + outcome.failure});
}

}  // namespace coupler
