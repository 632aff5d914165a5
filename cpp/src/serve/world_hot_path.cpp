#include <coupler/serve/world_hot_path.hpp>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string_view>
#include <variant>

#include <coupler/serve/recording_channels.hpp>
#include <coupler/serve/stepper.hpp>
#include <coupler/transport/world_answer.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

namespace coupler {

WorldHotPath::WorldHotPath(WorldSteps& worlds, WorldHotPathArrays arrays, std::size_t data_width,
                           WorldHotPathConfig config)
    : worlds_(worlds),
      arrays_(arrays),
      data_width_(data_width),
      config_(config),
      step_(worlds.count(), 1),
      reset_(worlds.count(), 0),
      reset_qpos_(worlds.count(), nullptr),
      reset_qvel_(worlds.count(), nullptr),
      taken_(worlds.count() * worlds.value_count()),
      clamped_before_(worlds.count() * worlds.value_count(), false) {
  if (!arrays.values || !arrays.events_on || !arrays.sensors || !arrays.times || (data_width > 0 && !arrays.data)) {
    throw Error("the hot path of a batch needs its arrays");
  }
}

std::uint64_t WorldHotPath::steps_taken(const ControlMessage& control) noexcept {
  if (control.world_controls.empty()) return 0;
  return control.steps == 0 ? 1 : control.steps;
}

std::optional<ControlMessage> WorldHotPath::taken(std::string_view payload, bool checked) {
  ControlMessage control;
  try {
    Message message = decode(payload);
    auto* decoded = std::get_if<ControlMessage>(&message);
    if (decoded == nullptr) return std::nullopt;
    control = std::move(*decoded);
  } catch (const ProtocolError&) {
    return std::nullopt;  // the caller answers it, naming the problem
  }
  const std::size_t n = worlds_.count();
  const std::size_t values = worlds_.value_count();
  const std::size_t width = values + worlds_.event_count();
  // Images and values the caller did not check, a Control that does not match (the caller names its problem), resets
  // where the worlds cannot be reset here: the caller's. One with values for every world or none (stepping no
  // world: it resets those it lists and reads every world) is taken; world_control_problem refuses any other size.
  const bool unchecked_images = !checked && (!control.images.empty() || !control.image_worlds.empty());
  if (control.steps > config_.max_steps || unchecked_images ||
      (!control.reset_worlds.empty() && !worlds_.resets()) ||
      world_control_problem(control, {n, width, worlds_.nq(), worlds_.nv()})) {
    return std::nullopt;
  }
  if (control.world_controls.empty()) return control;  // no value to check: the arrays keep the last Control's
  // Checked before any world changes: the arrays hold the last Control served until this one is taken.
  const double* row = control.world_controls.data();
  for (std::size_t i = 0; i < n; ++i, row += width) std::copy(row, row + values, taken_.begin() + i * values);
  if (!checked && worlds_.refuses(taken_.data())) return std::nullopt;  // the caller names what it refuses
  return control;
}

std::uint64_t WorldHotPath::apply(ControlMessage& control, bool in_chunks) {
  const std::size_t n = worlds_.count();
  const std::size_t values = worlds_.value_count();
  const std::size_t events = worlds_.event_count();
  const std::size_t width = values + events;
  // The reset worlds are reset instead of stepped, to the states given (or the scene's start state).
  const std::size_t nq = worlds_.nq();
  const std::size_t nv = worlds_.nv();
  const std::uint64_t steps = steps_taken(control);
  const bool chunked = in_chunks && steps > StepChunks::kFirst;
  if (chunked) {
    // Its states given are kept until its first chunk: the Control's frame is gone by then.
    long_.emplace(LongControl{std::nullopt, steps, steps, 0, control.reset_worlds.size(), control.shared_memory,
                              StepChunks(config_.chunk_seconds), std::move(control.reset_qpos),
                              std::move(control.reset_qvel), {}, 0});
  }
  const std::vector<double>& given_qpos = chunked ? long_->reset_qpos : control.reset_qpos;
  const std::vector<double>& given_qvel = chunked ? long_->reset_qvel : control.reset_qvel;
  std::fill(step_.begin(), step_.end(), steps > 0 ? 1 : 0);
  std::fill(reset_.begin(), reset_.end(), 0);
  std::fill(reset_qpos_.begin(), reset_qpos_.end(), nullptr);
  std::fill(reset_qvel_.begin(), reset_qvel_.end(), nullptr);
  for (std::size_t k = 0; k < control.reset_worlds.size(); ++k) {
    const std::size_t world = control.reset_worlds[k];
    step_[world] = 0;
    reset_[world] = 1;
    if (!given_qpos.empty()) reset_qpos_[world] = given_qpos.data() + k * nq;
    if (!given_qvel.empty()) reset_qvel_[world] = given_qvel.data() + k * nv;
  }
  // One that steps no world leaves the last Control's values and events, as the caller's path does.
  if (steps == 0) return 0;
  std::copy(taken_.begin(), taken_.end(), arrays_.values);
  const double* row = control.world_controls.data();
  for (std::size_t i = 0; i < n; ++i, row += width) {
    for (std::size_t k = 0; k < events; ++k) arrays_.events_on[i * events + k] = row[values + k] != 0.0 ? 1 : 0;
  }
  return steps;
}

bool WorldHotPath::step_applied(std::uint64_t steps, std::size_t resets, WorldHotPathOutcome& outcome) {
  if (!step(steps, resets > 0, true, outcome)) return false;
  ++outcome.controls;
  outcome.steps += steps;
  outcome.resets += resets;
  outcome.simulated_time = arrays_.times[0];
  return true;
}

std::optional<std::string> WorldHotPath::serve(std::string_view payload, SharedRingWriter* ring,
                                               WorldHotPathOutcome& outcome) {
  std::optional<ControlMessage> control = taken(payload, false);
  if (!control) return std::nullopt;
  const std::uint64_t steps = apply(*control, true);
  if (long_) return std::nullopt;  // taken in chunks once the server hands its request over
  if (!step_applied(steps, control->reset_worlds.size(), outcome)) {
    std::string failed = failed_step_frame(outcome.failure);
    outcome.request_bytes = payload.size();
    outcome.answer_bytes = failed.size();
    return failed;
  }
  std::string frame = answer_frame(control->shared_memory ? ring : nullptr);
  outcome.request_bytes = payload.size();
  outcome.answer_bytes = frame.size();
  return frame;
}

std::optional<WorldHotPathOutcome> WorldHotPath::step_control(std::string_view payload) {
  if (long_ || held_) throw Error("a Control for every world is in progress: no other can be stepped");
  std::optional<ControlMessage> control = taken(payload, true);
  if (!control) return std::nullopt;
  WorldHotPathOutcome outcome;
  step_applied(apply(*control, false), control->reset_worlds.size(), outcome);
  return outcome;
}

std::uint64_t WorldHotPath::steps_before_stop(std::uint64_t steps) const {
  if (!(config_.time_step > 0.0) || !std::isfinite(config_.stop_after)) return steps;
  const double to_stop = std::ceil((config_.stop_after - worlds_.time(0)) / config_.time_step - 1e-9);
  if (to_stop >= static_cast<double>(steps)) return steps;
  return to_stop < 1.0 ? 1 : static_cast<std::uint64_t>(to_stop);
}

std::optional<WorldHotPathOutcome> WorldHotPath::start_chunks(std::string_view payload) {
  if (long_ || held_) throw Error("a Control for every world is in progress: no other can be stepped");
  std::optional<ControlMessage> control = taken(payload, true);
  if (!control || control->steps <= StepChunks::kFirst) return std::nullopt;
  apply(*control, true);  // kept in long_, to be taken in chunks
  long_->caller_answers = true;
  long_->last = steps_before_stop(long_->steps);
  WorldHotPathOutcome outcome;
  outcome.controls = 1;
  outcome.steps = long_->steps;
  outcome.resets = long_->resets;
  outcome.long_steps = long_->steps;
  return outcome;
}

bool WorldHotPath::step(std::uint64_t steps, bool resets, bool first_chunk, WorldHotPathOutcome& outcome) {
  const std::size_t values = worlds_.value_count();
  WorldSteps::Batch batch;
  batch.values = arrays_.values;
  batch.events_on = arrays_.events_on;
  batch.step = step_.data();
  batch.steps = steps;
  batch.sensors = arrays_.sensors;
  batch.times = arrays_.times;
  batch.data = arrays_.data;
  if (resets) {
    batch.reset = reset_.data();
    batch.reset_qpos = reset_qpos_.data();
    batch.reset_qvel = reset_qvel_.data();
  }
  std::vector<std::pair<std::size_t, std::size_t>> outside;
  try {
    outside = worlds_.run(batch);
  } catch (const std::exception& e) {
    outcome.failure = e.what();
  } catch (...) {
    outcome.failure = "unknown exception";
  }
  if (!outcome.failure.empty()) return false;
  if (!first_chunk) return true;  // its values were counted with its first chunk
  bool first = false;
  for (const auto& [world, index] : outside) {
    if (!clamped_before_[world * values + index]) {
      clamped_before_[world * values + index] = true;
      first = true;
    }
  }
  if (first) {
    outcome.last_clamped = std::move(outside);  // the caller counts and warns about them
  } else {
    outcome.clamped += outside.size();
  }
  return true;
}

std::string WorldHotPath::answer_frame(SharedRingWriter* ring) const {
  const std::size_t n = worlds_.count();
  WorldAnswerArrays answer;
  answer.sensors = arrays_.sensors;
  answer.sensor_count = n * worlds_.sensor_width();
  answer.times = arrays_.times;
  answer.world_count = n;
  answer.data = arrays_.data;
  answer.data_count = n * data_width_;
  return encode_world_answer(answer, {}, {}, ring);
}

void WorldHotPath::publish_to(FramePublisher& publisher, std::vector<MujocoStateArrays> states) {
  if (states.size() != worlds_.count()) throw Error("the hot path of a batch publishes the state of every world");
  publisher_ = &publisher;
  states_ = std::move(states);
}

void WorldHotPath::publish(std::string_view request, std::int64_t received_ns, const std::string& answer,
                           bool stepped, bool states, std::uint64_t step) {
  publish_taken(request, received_ns, stepped && states, step);
  publish_answer(answer, stepped, arrays_.times[0]);
}

void WorldHotPath::publish_taken(std::string_view request, std::int64_t received_ns, bool stepped,
                                 std::uint64_t step) {
  publisher_->publish(kControlChannel, request, received_ns, FramePublisher::kNoTime);
  if (!stepped) return;
  // As the observer publishes a batch's states: one per world, only world 0's with the stream's simulated time.
  const std::int64_t wall = wall_clock_nanoseconds();
  for (std::size_t i = 0; i < states_.size(); ++i) {
    encode_mujoco_state(arrays_.times[i], step, states_[i], state_bytes_, static_cast<std::uint32_t>(i));
    publisher_->publish(kStateChannel, state_bytes_, wall,
                        i == 0 ? header_nanoseconds(arrays_.times[0]) : FramePublisher::kNoTime);
  }
}

void WorldHotPath::publish_answer(const std::string& answer, bool stepped, double time) {
  publisher_->publish(stepped ? kSensorChannel : kErrorChannel, answer, wall_clock_nanoseconds(),
                      stepped ? header_nanoseconds(time) : FramePublisher::kNoTime);
}

bool WorldHotPath::send_held(Server& server) {
  if (!held_) return false;
  server.reply_frame(held_->request, held_->frame);
  if (publisher_) publish_answer(held_->frame, true, held_->time);
  held_.reset();
  return true;
}

void WorldHotPath::hold(Request request, std::string frame, double time) {
  if (long_ || held_) throw Error("a Control for every world is in progress: no other answer can be held");
  if (request.through_channel()) throw Error("an answer through the shared channel cannot be held");
  held_.emplace(HeldAnswer{std::move(request), std::move(frame), time});
}

bool WorldHotPath::end_long_control(Server& server, const std::string& text) {
  if (!long_taken()) return false;
  if (long_->request) {
    const std::string frame = encode(ErrorMessage{static_cast<int>(ErrorCode::SessionEnded), text});
    server.reply_frame(*long_->request, frame);
    if (publisher_) publish_answer(frame, false, 0.0);
  }
  long_.reset();
  return true;
}

WorldHotPathOutcome WorldHotPath::run(Server& server, const std::string& peer, std::chrono::milliseconds return_after,
                                      SharedRingWriter* ring, bool starting, std::uint64_t steps_before,
                                      std::optional<std::pair<std::size_t, std::size_t>> sizes_logged,
                                      std::optional<HotPathPacing> pacing) {
  using Clock = std::chrono::steady_clock;
  using Seconds = std::chrono::duration<double>;
  WorldHotPathOutcome outcome;
  const auto deadline = Clock::now() + return_after;
  std::optional<AnswerPacing> paced;
  if (pacing) paced.emplace(*pacing);
  Clock::time_point last_control{};
  // The first Control stepped starts a run waiting for one (a failed one does not, as on the caller's path);
  // paced, its clock runs from now, at the time the Control stepped from (its `steps` before world 0's time), as
  // the caller's clock would.
  const auto start = [&](std::uint64_t steps) {
    if (!starting) return;
    starting = false;
    outcome.started = true;
    if (paced) paced->anchor(arrays_.times[0] - static_cast<double>(steps) * config_.time_step, Clock::now());
  };
  // Published: the Control answered last, published once its answer has been sent, with the worlds' states when
  // it took steps (as the caller's observer publishes them after steps only: not after one that steps no world).
  std::string request;
  std::int64_t received_ns = 0;
  std::string answered;
  bool answered_steps = false;
  // Paced, an answer due later than longest_hold, to hold once the server hands its request over.
  std::optional<std::string> to_hold;
  const Server::Answerer answer = [&](const std::string& from, std::string_view payload) -> std::optional<std::string> {
    // While an answer is held or a Control of many steps is stepped, its controller waits for its answer:
    // everything else is the caller's to serve (or refuse).
    if (from != peer || held_ || long_) return std::nullopt;
    const auto arrived = Clock::now();
    const std::int64_t arrived_ns = publisher_ ? wall_clock_nanoseconds() : 0;
    const std::uint64_t steps_until_now = outcome.steps;
    std::optional<std::string> frame = serve(payload, ring, outcome);
    if (long_ && publisher_) {
      long_->request_frame.assign(payload.data(), payload.size());
      long_->received_ns = arrived_ns;
    }
    if (!frame) return frame;
    last_control = arrived;
    const bool stepped = outcome.failure.empty();
    if (stepped) start(outcome.steps - steps_until_now);
    if (publisher_) {
      request.assign(payload.data(), payload.size());
      received_ns = arrived_ns;
      answered = *frame;
      answered_steps = outcome.steps > steps_until_now;
    }
    if (config_.trace) {
      outcome.request_frame.assign(payload.data(), payload.size());
      outcome.answer_frame = *frame;
    }
    if (paced && stepped) {
      if (paced->holds_long(*outcome.simulated_time, Clock::now())) {
        to_hold = std::move(*frame);  // held from when the server hands its request over
        return std::nullopt;
      }
      if (paced->hold_until_due(*outcome.simulated_time)) ++outcome.deadlines_missed;
    }
    return frame;
  };
  // Whether the loop goes on after a Control's answer was sent.
  const auto goes_on = [&] {
    if (config_.trace || !outcome.failure.empty() || !outcome.last_clamped.empty()) return false;
    if (sizes_logged) {
      // A change the caller is to log before the next exchange's.
      const std::pair<std::size_t, std::size_t> sizes{outcome.request_bytes, outcome.answer_bytes};
      if (sizes != *sizes_logged) return false;
    }
    return !(outcome.simulated_time && *outcome.simulated_time >= config_.stop_after);
  };
  // The Control of many steps, applied, whose request the server handed over: counted, published as the caller's
  // path publishes it as it is taken (the Control, then every world's state, before its steps), its steps cut at
  // stop_after.
  const auto take_long = [&](Request taken) {
    LongControl& control = *long_;
    ++outcome.controls;
    outcome.steps += control.steps;
    outcome.resets += control.resets;
    outcome.request_bytes = 0;  // its sizes once it is answered
    outcome.answer_bytes = 0;
    last_control = Clock::now();
    if (publisher_) publish_taken(control.request_frame, control.received_ns, true, steps_before + outcome.steps);
    if (config_.trace) outcome.request_frame = taken.frame();  // logged as held, as the caller's path logs it
    if (!paced) start(control.steps);  // unpaced, the run starts as it is taken, as on the caller's path
    if (config_.time_step > 0.0 && std::isfinite(config_.stop_after)) {
      const double to_stop = std::ceil((config_.stop_after - worlds_.time(0)) / config_.time_step - 1e-9);
      if (to_stop < static_cast<double>(control.steps)) {
        control.last = to_stop < 1.0 ? 1 : static_cast<std::uint64_t>(to_stop);
      }
    }
    control.request = std::move(taken);
  };
  // The next chunk of the Control of many steps, and its answer after the last: false when the loop must end.
  const auto step_long = [&] {
    LongControl& control = *long_;
    const std::uint64_t chunk = control.chunks.next(control.last - control.taken);
    const bool first = control.taken == 0;
    const auto began = Clock::now();
    const bool stepped = step(chunk, first && control.resets > 0, first, outcome);
    control.chunks.took(chunk, Seconds(Clock::now() - began).count());
    if (!stepped) {
      outcome.long_failed = true;
      if (control.request) {
        const std::string failed = failed_step_frame(outcome.failure);
        server.reply_frame(*control.request, failed);
        if (publisher_) publish_answer(failed, false, 0.0);
      }
      long_.reset();
      return false;
    }
    control.taken += chunk;
    if (control.taken < control.last) {
      if (!outcome.last_clamped.empty()) return false;  // the caller warns meanwhile
      // Whatever waits is the caller's to serve between two chunks (reads answered, requests to drive refused).
      Offered offered = server.receive_offering(std::chrono::milliseconds(0), answer);
      if (offered.request) {
        outcome.request = std::move(offered.request);
        return false;
      }
      return true;
    }
    if (control.last < control.steps) {
      outcome.long_at_stop_after = true;  // the caller ends it
      return false;
    }
    if (control.caller_answers) {
      outcome.long_done = true;  // the caller answers it from the arrays written now
      long_.reset();
      return false;
    }
    std::string frame = answer_frame(control.shared_memory ? ring : nullptr);
    Request taken = std::move(*control.request);
    const std::uint64_t steps = control.steps;
    long_.reset();
    const double time = arrays_.times[0];
    start(steps);  // paced, a Control that starts the run anchors its clock once its steps are taken
    if (paced && paced->holds_long(time, Clock::now())) {
      held_.emplace(HeldAnswer{std::move(taken), std::move(frame), time});
      return outcome.last_clamped.empty();
    }
    if (paced && paced->hold_until_due(time)) ++outcome.deadlines_missed;
    server.reply_frame(taken, frame);
    if (publisher_) publish_answer(frame, true, time);
    outcome.simulated_time = time;
    outcome.request_bytes = taken.frame().size();
    outcome.answer_bytes = frame.size();
    return goes_on();
  };
  for (;;) {
    const auto now = Clock::now();
    if (held_ && !paced->holds_long(held_->time, now)) {
      // Its last stretch, slept through, then sent as any answer.
      if (paced->hold_until_due(held_->time)) ++outcome.deadlines_missed;
      outcome.request_bytes = held_->request.frame().size();
      outcome.answer_bytes = held_->frame.size();
      outcome.simulated_time = held_->time;
      send_held(server);
      if (!goes_on()) break;
      continue;
    }
    if (now >= deadline) break;
    if (long_taken()) {
      if (!step_long()) break;
      continue;
    }
    auto until = deadline;
    if (held_) until = std::min(until, paced->due_at(held_->time) - paced->longest_hold());
    const auto left =
        std::max(std::chrono::ceil<std::chrono::milliseconds>(until - now), std::chrono::milliseconds(0));
    Offered offered = server.receive_offering(left, answer);
    if (long_ && !long_taken() && offered.request && offered.request->peer() == peer) {
      take_long(std::move(*offered.request));
      if (config_.trace || !outcome.last_clamped.empty()) break;
      continue;
    }
    if (long_ && !long_taken()) long_.reset();  // never handed over: nothing of it is left to take
    if (to_hold && offered.request && offered.request->peer() == peer) {
      // As the caller's path: the Control and the worlds' states are published as it is answered, the answer once
      // sent. Its answer, not sent yet, counts in no size, nor does its time.
      const double time = *outcome.simulated_time;
      if (publisher_) publish_taken(request, received_ns, answered_steps, steps_before + outcome.steps);
      held_.emplace(HeldAnswer{std::move(*offered.request), std::move(*to_hold), time});
      to_hold.reset();
      outcome.request_bytes = 0;
      outcome.answer_bytes = 0;
      outcome.simulated_time.reset();
      // Traced, it is logged as it is answered, before the requests served while it waits.
      if (config_.trace || !outcome.last_clamped.empty()) break;
      continue;
    }
    to_hold.reset();
    if (offered.request) {
      outcome.request = std::move(offered.request);
      break;
    }
    if (!offered.answered) continue;
    if (publisher_) {
      publish(request, received_ns, answered, outcome.failure.empty(), answered_steps, steps_before + outcome.steps);
    }
    if (!goes_on()) break;
  }
  outcome.answer_held = held_.has_value();
  if (long_taken()) {
    outcome.long_steps = long_->steps;
    outcome.long_taken = long_->taken;
  }
  if (outcome.controls > 0 || !outcome.failure.empty()) outcome.since_last_control = Clock::now() - last_control;
  return outcome;
}

}  // namespace coupler
