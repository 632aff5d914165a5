#include <coupler/serve/hot_path.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <iterator>
#include <string_view>
#include <exception>
#include <thread>
#include <utility>
#include <variant>

#include "wire/control_frame_reader.hpp"

#include <coupler/serve/recording_channels.hpp>
#include <coupler/serve/run_clock.hpp>
#include <coupler/serve/stepper.hpp>
#include <coupler/serve/waiting_requests.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

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

namespace {

// A Control or a SensorRequest that asks for images, decoded; nullopt for any other payload.
std::optional<Message> asking_for_images(std::string_view payload) {
  try {
    Message message = decode(payload);
    if (const auto* control = std::get_if<ControlMessage>(&message); control && !control->images.empty()) {
      return message;
    }
    if (const auto* read = std::get_if<SensorRequestMessage>(&message); read && !read->images.empty()) {
      return message;
    }
  } catch (const ProtocolError&) {
    // Not a request the caller renders for: handed back empty, as any other.
  }
  return std::nullopt;
}

// Whether `payload` is a SensorRequest (asking for no image) as the server's decoder reads it. Only
// small frames are looked at here: a larger one is decoded by the server.
bool is_sensor_request(std::string_view payload) {
  constexpr std::size_t kLargestLookedAt = 64;
  if (payload.size() > kLargestLookedAt) return false;
  try {
    // One asking for images is the caller's: images are rendered there.
    const Message message = decode(payload);
    const auto* read = std::get_if<SensorRequestMessage>(&message);
    return read != nullptr && read->images.empty();
  } catch (const ProtocolError&) {
    return false;
  }
}

}  // namespace

void HotPath::publish_to(FramePublisher& publisher, std::optional<MujocoStateArrays> state) {
  publisher_ = &publisher;
  mujoco_state_ = state;
}

void HotPath::publish(Published& exchange) {
  publish_taken(exchange);
  publish_answer(exchange);
}

void HotPath::publish_taken(Published& exchange) {
  if (pending_.empty()) publish_due_ = std::chrono::steady_clock::now() + kPublishEvery;
  pending_.push_back({kControlChannel, std::move(exchange.request), exchange.request_wall_ns, FramePublisher::kNoTime});
  if (exchange.stepped && mujoco_state_) {
    encode_mujoco_state(exchange.time, exchange.step, *mujoco_state_, mujoco_state_bytes_);
    pending_.push_back({kStateChannel, mujoco_state_bytes_, wall_clock_nanoseconds(), header_nanoseconds(exchange.time)});
  }
}

void HotPath::publish_answer(Published& exchange) {
  if (pending_.empty()) publish_due_ = std::chrono::steady_clock::now() + kPublishEvery;
  pending_.push_back({exchange.stepped ? kSensorChannel : kErrorChannel, std::move(exchange.answer),
                      wall_clock_nanoseconds(),
                      exchange.stepped ? header_nanoseconds(exchange.time) : FramePublisher::kNoTime});
}

void HotPath::publish_read(std::string_view request, const std::string& answer) {
  // As the Python path's observer publishes a read: the request, then its answer, which carries no simulated time
  // (it reports a state, it took no step).
  const std::int64_t wall = wall_clock_nanoseconds();
  queue_published(kReadChannel, std::string(request), wall, FramePublisher::kNoTime);
  queue_published(kSensorChannel, answer, wall, FramePublisher::kNoTime);
}

void HotPath::queue_published(std::string_view topic, std::string payload, std::int64_t wall_ns,
                              std::int64_t simulated_ns) {
  if (pending_.empty()) publish_due_ = std::chrono::steady_clock::now() + kPublishEvery;
  pending_.push_back({topic, std::move(payload), wall_ns, simulated_ns});
}

void HotPath::flush_published() {
  for (const Pending& message : pending_) {
    publisher_->publish(message.topic, message.payload, message.wall_ns, message.simulated_ns);
  }
  pending_.clear();
}

HotPathOutcome HotPath::run(Server& server, const std::string& peer, std::chrono::milliseconds return_after,
                            std::uint64_t steps_before, std::optional<HotPathPacing> pacing, bool starting,
                            std::optional<Request> first) {
  return serve_controllers(server, {HotPathController{peer, {}}}, nullptr, return_after, steps_before, pacing,
                           starting, std::move(first));
}

HotPathOutcome HotPath::run(Server& server, const std::vector<HotPathController>& controllers, ControlRounds& rounds,
                            std::chrono::milliseconds return_after, std::uint64_t steps_before,
                            std::optional<HotPathPacing> pacing, bool starting, std::optional<Request> first) {
  if (controllers.empty()) throw Error("the hot path serves the Controls of at least one controller");
  return serve_controllers(server, controllers, &rounds, return_after, steps_before, pacing, starting,
                           std::move(first));
}

HotPathOutcome HotPath::serve_controllers(Server& server, const std::vector<HotPathController>& controllers,
                                          ControlRounds* rounds, std::chrono::milliseconds return_after,
                                          std::uint64_t steps_before, std::optional<HotPathPacing> pacing,
                                          bool starting, std::optional<Request> first) {
  using Clock = std::chrono::steady_clock;
  using Seconds = std::chrono::duration<double>;
  HotPathOutcome outcome;
  Published exchange;
  const auto deadline = Clock::now() + return_after;
  std::optional<AnswerPacing> paced;
  if (pacing) paced.emplace(*pacing);
  // When an answer stepped to `time` is due on the wall clock.
  const auto due_at = [&](double time) { return paced->due_at(time); };
  // Holds an answer stepped to `time` until it is due; counts it when it is late.
  const auto hold_until_due = [&](double time) {
    if (paced->hold_until_due(time)) ++outcome.deadlines_missed;
  };
  // The first Control (or round) taken while the run waits for one starts it, stepping from `stepped_from` (the
  // simulated time before its steps); paced, its clock runs from now: the answer is held for that Control's own steps.
  const auto start = [&](double stepped_from) {
    if (!starting) return;
    starting = false;
    outcome.started = true;
    if (paced) paced->anchor(stepped_from, Clock::now());
  };
  Clock::time_point last_control{};
  Clock::time_point last_round{};
  // Several controllers: their peers (a round is due once each holds a Control), and the objects each drives.
  std::vector<std::string> peers;
  std::vector<std::vector<bool>> drives;
  for (const HotPathController& controller : controllers) {
    peers.push_back(controller.peer);
    std::vector<bool> objects(controls_.objects().size(), false);
    for (const std::size_t k : controller.objects) {
      if (k >= objects.size()) throw Error("a controller drives an object the control layout does not have");
      objects[k] = true;
    }
    drives.push_back(std::move(objects));
  }
  const auto controller_of = [&](const std::string& from) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < peers.size(); ++i) {
      if (peers[i] == from) return i;
    }
    return std::nullopt;
  };
  // The Control the answerer applied to wait for its round, once the server hands its request over.
  std::optional<std::uint64_t> holding;
  std::string holding_peer;
  const std::string& peer = peers.front();  // a lone controller
  // The caller settles the state before each run, except while a Control of many steps goes on: the stepper then
  // knows best (its pose applied and not yet stepped makes the next step start afresh).
  if (!long_) stepper_.assume_settled();
  state_.clear();  // the caller may have changed the state since the last run
  // Reads of other peers waiting for their turn, in arrival order (none of a controller's waits here).
  WaitingRequests<Request> readers(ReaderShare(config_.reader_share, config_.reader_patience));
  // Traced, reads go to the caller, which logs them as every other request; published, they are published here.
  const bool reads_to_caller = config_.trace;
  // A Control answered, whose exchange `take` publishes once its answer is sent.
  bool control_answered = false;
  // The last stretch of a hold, slept through: a poll is ms-grained, and one step's hold the common case.
  const auto longest_hold = paced ? paced->longest_hold() : std::chrono::duration_cast<Clock::duration>(Seconds(1e9));
  // Paced, whether the answer to a Control of `steps` steps taken now would wait longer than that (the first of a
  // run, for its own steps).
  const auto waits_long = [&](std::uint64_t steps) {
    if (!pacing || !(config_.time_step > 0.0)) return false;
    const double now_time = stepper_.time();
    const double to = now_time + static_cast<double>(steps == 0 ? 1 : steps) * config_.time_step;
    const double hold = starting ? (to - now_time) / paced->speed() : Seconds(due_at(to) - Clock::now()).count();
    return hold > Seconds(longest_hold).count();
  };
  // A paced answer due later than that, to hold once the server hands its request over.
  std::optional<std::string> to_hold;
  double to_hold_time = 0.0;
  const auto answer_read = [&](std::string_view request) -> const std::string& {
    ++outcome.reads;
    const std::string& frame = state_frame();
    if (publisher_) publish_read(request, frame);
    return frame;
  };
  // A lone controller's Control of many steps, applied, to take in chunks once the server hands its request over.
  std::optional<std::uint64_t> starting_long;
  // The request being answered came through the shared channel, where nothing can wait for chunks.
  bool through_channel_now = false;
  const Server::Answerer answer = [&](const std::string& from, std::string_view payload) -> std::optional<std::string> {
    std::uint64_t steps = 0;
    const std::optional<std::size_t> controller = rounds ? controller_of(from) : std::nullopt;
    if ((long_ || held_) && (rounds ? controller.has_value() : from == peer)) {
      // Its Control is being stepped, or its answer held: it may read, anything else is the caller's to refuse.
      if (reads_to_caller || !is_sensor_request(payload)) return std::nullopt;
      return answer_read(payload);
    }
    if (rounds ? !controller : from != peer) {
      if (reads_to_caller || readers.others_wait() || !readers.has_share() || !is_sensor_request(payload)) {
        return std::nullopt;
      }
      readers.other_served(Clock::now());
      return answer_read(payload);
    }
    if (!reader_->read(payload, targets_, config_.max_steps, steps)) {
      if (is_sensor_request(payload)) {
        if (reads_to_caller) return std::nullopt;
        readers.controller_served();
        return answer_read(payload);
      }
      if (!read_decoded(payload, steps)) return std::nullopt;
    }
    // A value the simulation cannot take, a mocap body's zero quaternion: the caller refuses the Control, naming it.
    if (scatter_.refuses(targets_.values, targets_.values_set)) return std::nullopt;
    last_control = Clock::now();
    if (rounds) {
      if (rounds->holds(from)) return std::nullopt;  // the caller tells it its last Control still waits
      const std::vector<bool>& driven = drives[*controller];
      for (std::size_t k = 0; k < driven.size(); ++k) {
        if (targets_.values_set[k] && !driven[k]) return std::nullopt;  // a robot to claim, or to refuse
      }
      if (!apply(outcome)) {
        ++outcome.error_answers;
        std::string failed = failed_step_frame(outcome.failure);
        if (publisher_) {
          queue_published(kControlChannel, std::string(payload), wall_clock_nanoseconds(), FramePublisher::kNoTime);
          queue_published(kErrorChannel, failed, wall_clock_nanoseconds(), FramePublisher::kNoTime);
        }
        return failed;
      }
      stepper_.unsettle();  // reads before the round see the controls applied, as the step will
      holding = steps;
      holding_peer = from;
      return std::nullopt;
    }
    if (steps > StepChunks::kFirst) {
      if (through_channel_now) return std::nullopt;  // sent again through the socket, applied there
      if (!apply(outcome)) {
        std::string failed = failed_step_frame(outcome.failure);
        if (publisher_) {
          queue_published(kControlChannel, std::string(payload), wall_clock_nanoseconds(), FramePublisher::kNoTime);
          queue_published(kErrorChannel, failed, wall_clock_nanoseconds(), FramePublisher::kNoTime);
        }
        outcome.answer_bytes = failed.size();
        return failed;
      }
      starting_long = steps;
      return std::nullopt;
    }
    // An answer to hold while others are served cannot wait in the channel: sent again through the socket, where
    // it is held so.
    if (through_channel_now && waits_long(steps)) return std::nullopt;
    if (publisher_) {
      exchange.request.assign(payload.data(), payload.size());
      exchange.request_wall_ns = wall_clock_nanoseconds();
    }
    const std::optional<double> answered_time = outcome.simulated_time;
    const double stepped_from = stepper_.time();
    std::string frame = serve(steps == 0 ? 1 : steps, outcome);
    start(stepped_from);
    if (publisher_) {
      // Published once the answer is sent, so the controller does not wait for it; the state read now is still
      // the one after this step, since nothing steps before then.
      exchange.answer = frame;
      exchange.stepped = outcome.failure.empty();
      exchange.step = steps_before + outcome.steps;
      exchange.time = outcome.simulated_time.value_or(0.0);
    }
    if (pacing && outcome.failure.empty()) {
      if (!through_channel_now && due_at(*outcome.simulated_time) - Clock::now() > longest_hold) {
        // Held while the others are served, from when the server hands its request over.
        to_hold = std::move(frame);
        to_hold_time = *outcome.simulated_time;
        outcome.simulated_time = answered_time;  // not answered yet
        return std::nullopt;
      }
      hold_until_due(*outcome.simulated_time);
    }
    outcome.request_bytes = payload.size();
    outcome.answer_bytes = frame.size();
    if (config_.trace) {
      outcome.request_frame.assign(payload.data(), payload.size());
      outcome.answer_frame = frame;
    }
    control_answered = publisher_ != nullptr;
    readers.controller_served();
    return frame;
  };
  // A Control of many steps (a round's: each of its Controls), applied: its steps are taken in chunks from here on,
  // up to the step reaching stop_after. One that starts a paced run anchors its clock once its steps are taken, as
  // the Python path does: its answer waits for its own steps after them.
  const auto start_long = [&](std::vector<Request> requests, bool round, std::uint64_t steps) {
    const double stepped_from = stepper_.time();
    const bool anchors_after = starting && pacing.has_value();
    if (!anchors_after) start(stepped_from);
    const std::uint64_t last = steps_before_stop(steps);
    long_.emplace(LongControl{std::move(requests), round, steps, last, 0, StepChunks(config_.chunk_seconds), {},
                              anchors_after ? std::optional<double>(stepped_from) : std::nullopt});
  };
  // Paced, answers stepped to `time` (a round's, or a Control of many steps') that would wait longer than
  // `longest_hold`: held from here on while the others are served, the state after their steps published now, as
  // the Python path publishes it before their answers wait. `answered_time`: the time of the last answer sent.
  const auto hold_long = [&](std::vector<Request>& requests, std::string& frame, bool round,
                             std::optional<double> answered_time) {
    const double time = *outcome.simulated_time;
    if (!pacing || due_at(time) - Clock::now() <= longest_hold) return false;
    if (publisher_ && mujoco_state_) {
      encode_mujoco_state(time, steps_before + outcome.steps, *mujoco_state_, mujoco_state_bytes_);
      queue_published(kStateChannel, mujoco_state_bytes_, wall_clock_nanoseconds(), header_nanoseconds(time));
    }
    held_.emplace(HeldAnswer{std::move(requests), std::move(frame), time, {}, round});
    outcome.simulated_time = answered_time;  // not answered yet
    return true;
  };
  // Several controllers: steps the round once every controller's Control waits, and answers them all; false when
  // the loop must end.
  const auto step_round = [&] {
    const std::optional<std::uint64_t> due = rounds->due(peers);
    if (!due) return true;
    if (*due > config_.max_steps) return false;  // beyond the cap: the caller refuses it
    const double stepped_from = stepper_.time();
    if (*due > StepChunks::kFirst) {
      start_long(rounds->take(peers).requests, true, *due);  // taken in chunks from here on
      return true;
    }
    ControlRounds::Round round = rounds->take(peers);
    const std::optional<double> answered_time = outcome.simulated_time;
    std::string frame = step(*due, outcome);
    start(stepped_from);
    if (outcome.failure.empty() && hold_long(round.requests, frame, true, answered_time)) return true;
    last_round = Clock::now();
    ++outcome.rounds;
    if (!outcome.failure.empty()) {
      frame = failed_step_frame(outcome.failure);
      outcome.error_answers += round.requests.size();
    } else if (pacing) {
      hold_until_due(*outcome.simulated_time);
    }
    for (const Request& request : round.requests) server.reply_frame(request, frame);
    outcome.answer_bytes = frame.size();
    if (publisher_) {
      // As the Python path publishes a round: the state after its step, then each answer.
      const std::int64_t wall = wall_clock_nanoseconds();
      const bool stepped = outcome.failure.empty();
      const double time = outcome.simulated_time.value_or(0.0);
      if (stepped && mujoco_state_) {
        encode_mujoco_state(time, steps_before + outcome.steps, *mujoco_state_, mujoco_state_bytes_);
        queue_published(kStateChannel, mujoco_state_bytes_, wall, header_nanoseconds(time));
      }
      for (std::size_t i = 0; i < round.requests.size(); ++i) {
        queue_published(stepped ? kSensorChannel : kErrorChannel, frame, wall,
                        stepped ? header_nanoseconds(time) : FramePublisher::kNoTime);
      }
    }
    if (!outcome.failure.empty()) return false;
    return !(outcome.simulated_time && *outcome.simulated_time >= config_.stop_after);
  };
  // Takes what a wait brought (an answer given or a request left): false when the loop must end.
  const auto take = [&](Offered offered) {
    if (to_hold && offered.request && offered.request->peer() == peer) {
      std::vector<Request> requests;
      requests.push_back(std::move(*offered.request));
      held_.emplace(HeldAnswer{std::move(requests), std::move(*to_hold), to_hold_time, std::move(exchange)});
      to_hold.reset();
      // As the Python path publishes a held answer: the Control and the state after its step now, the answer
      // once it is sent.
      if (publisher_) publish_taken(held_->exchange);
      last_control = Clock::now();
      readers.controller_served();
      if (config_.trace) {
        // Logged as the Python path logs it: as it is answered, before the reads served while it waits.
        outcome.request_frame = held_->requests.front().frame();
        outcome.answer_frame = held_->frame;
        return false;
      }
      return outcome.first_clamped.empty();  // the caller warns of a first clamp meanwhile
    }
    to_hold.reset();
    if (starting_long && offered.request && offered.request->peer() == peer) {
      // The lone controller's Control of many steps, applied: its steps are taken in chunks from here on.
      const std::uint64_t steps = *starting_long;
      starting_long.reset();
      if (publisher_) {
        queue_published(kControlChannel, offered.request->frame(), wall_clock_nanoseconds(), FramePublisher::kNoTime);
      }
      if (config_.trace) outcome.request_frame = offered.request->frame();
      std::vector<Request> requests;
      requests.push_back(std::move(*offered.request));
      start_long(std::move(requests), false, steps);
      ++outcome.controls;
      last_control = Clock::now();
      readers.controller_served();
      return outcome.first_clamped.empty() && !config_.trace;
    }
    starting_long.reset();
    if (holding && offered.request && offered.request->peer() != holding_peer) holding.reset();
    if (holding && offered.request) {
      // A controller's Control, applied: it waits for the others'.
      const std::string from = offered.request->peer();
      outcome.request_bytes = offered.request->frame().size();
      if (config_.trace) outcome.request_frame = offered.request->frame();
      if (publisher_) {
        queue_published(kControlChannel, offered.request->frame(), wall_clock_nanoseconds(), FramePublisher::kNoTime);
      }
      rounds->hold(from, *holding);
      rounds->attach(std::move(*offered.request));
      holding.reset();
      ++outcome.controls;
      readers.controller_served();
      if (!step_round()) return false;
      return outcome.first_clamped.empty() && !config_.trace;
    }
    if (offered.request) {
      const bool of_controller = rounds ? controller_of(offered.request->peer()).has_value()
                                        : offered.request->peer() == peer;
      // A read asking for images is the caller's too: queued here, it would be answered without them.
      if (!reads_to_caller && !of_controller && is_sensor_request(offered.request->frame())) {
        readers.arrived(std::move(*offered.request), false, Clock::now());
        return true;
      }
      outcome.request = std::move(offered.request);
      return false;
    }
    // Answered: a read (published as it was answered), a Control refused there, or a Control to publish now.
    if (control_answered) {
      control_answered = false;
      publish(exchange);
    }
    if (config_.trace || !outcome.failure.empty() || !outcome.first_clamped.empty()) return false;
    return !(outcome.simulated_time && *outcome.simulated_time >= config_.stop_after);
  };
  const auto answer_reader = [&](const Request& reader) { server.reply_frame(reader, answer_read(reader.frame())); };
  // Sends the held answer once it is due (as any answer, counted when late): false when the loop must end.
  const auto answer_held = [&] {
    const double time = held_->time;
    if (pacing) hold_until_due(time);
    reply_held(server);
    outcome.simulated_time = time;
    if (held_->round) {
      ++outcome.rounds;
      last_round = Clock::now();
    } else {
      outcome.request_bytes = held_->requests.front().frame().size();
    }
    outcome.answer_bytes = held_->frame.size();
    held_.reset();
    return !config_.trace && time < config_.stop_after;
  };
  // While an answer is held: the others' reads are answered (its controller waits for its answer, not to send, so
  // they need no share of its time) and anything else goes to the caller, until the last stretch of the hold.
  const auto serve_while_held = [&](Clock::time_point now) {
    if (!pacing || due_at(held_->time) - now <= longest_hold) return answer_held();
    if (readers.others_wait()) {
      answer_reader(*readers.take_any());
      return true;
    }
    auto until = std::min(deadline, due_at(held_->time) - longest_hold);
    if (!pending_.empty()) until = std::min(until, publish_due_);
    const auto left = std::max(std::chrono::ceil<std::chrono::milliseconds>(until - now), std::chrono::milliseconds(0));
    Offered offered = server.receive_offering(left, answer);
    if (!offered.answered && !offered.request) return true;
    return take(std::move(offered));
  };
  // A lone controller's channel: its requests answered there, the socket looked at in between.
  const bool through_channel = channel_ != nullptr && rounds == nullptr;
  Clock::time_point socket_due{};
  const auto receive_either = [&](std::chrono::milliseconds wait) -> Offered {
    const auto until = Clock::now() + wait;
    for (;;) {
      auto now = Clock::now();
      if (now >= socket_due) {
        socket_due = now + kSocketEvery;
        Offered offered = server.receive_offering(std::chrono::milliseconds(0), answer);
        if (offered.answered || offered.request) return offered;
      }
      const auto slice = std::max(std::chrono::ceil<std::chrono::milliseconds>(std::min(until, socket_due) - now),
                                  std::chrono::milliseconds(0));
      const std::optional<std::string_view> request = channel_->receive(slice);
      if (request) {
        through_channel_now = true;
        std::optional<std::string> frame = answer(peer, *request);
        through_channel_now = false;
        if (!frame && is_sensor_request(*request)) {
          // A read the caller would log: through the channel, it is answered here all the same.
          frame = answer_read(*request);
        }
        if (!frame) {
          std::optional<Message> images = asking_for_images(*request);
          const auto* control = images ? std::get_if<ControlMessage>(&*images) : nullptr;
          // The caller renders them, off this thread, and answers through the channel (its client waits there); a
          // Control's answer that would wait there for its time goes through the socket, where it is held so.
          if (images && !(control && waits_long(control->steps))) {
            Offered handed;
            handed.request = Request::from_channel(peer, std::move(*images), std::string(*request));
            return handed;
          }
        }
        // Anything else the caller would serve (a Control it refuses, chunks or warns about, a Reset)
        // is answered with an empty frame, which no message encodes to: nothing was applied, and the client
        // sends it again through the socket, where the caller serves it as ever.
        channel_->reply(frame ? *frame : std::string());
        Offered answered;
        answered.answered = true;
        return answered;
      }
      if (Clock::now() >= until) return {};
    }
  };
  // Takes the next chunk of the long Control; once its last is taken, answers it: false when the loop must end.
  const auto step_chunk = [&] {
    const std::optional<double> answered_time = outcome.simulated_time;
    const std::uint64_t n = long_->chunks.next(long_->last - long_->taken);
    const auto chunk_started = Clock::now();
    std::string frame = step(n, outcome);
    if (!outcome.failure.empty()) {
      frame = failed_step_frame(outcome.failure);
      for (const Request& request : long_->requests) {
        server.reply_frame(request, frame);
        ++outcome.error_answers;
        if (publisher_) queue_published(kErrorChannel, frame, wall_clock_nanoseconds(), FramePublisher::kNoTime);
      }
      if (long_->round) ++outcome.rounds;
      outcome.long_failed = true;
      long_.reset();
      return false;
    }
    long_->chunks.took(n, Seconds(Clock::now() - chunk_started).count());
    long_->taken += n;
    last_control = Clock::now();  // its controller waits for its answer, it has not gone: its lease runs on
    if (long_->taken < long_->steps) {
      outcome.simulated_time = answered_time;  // no Control was answered
      if (long_->taken < long_->last) return true;
      outcome.long_at_stop_after = true;  // the caller ends it
      return false;
    }
    if (long_->caller_answers) {
      outcome.simulated_time = answered_time;  // answered by the caller, from the state read now
      outcome.long_done = true;
      long_.reset();
      return false;
    }
    if (long_->starts_from) start(*long_->starts_from);
    if (hold_long(long_->requests, frame, long_->round, answered_time)) {
      long_.reset();
      return true;
    }
    const double time = *outcome.simulated_time;
    if (pacing) hold_until_due(time);
    for (const Request& request : long_->requests) server.reply_frame(request, frame);
    if (long_->round) {
      ++outcome.rounds;
      last_round = Clock::now();
    } else {
      outcome.request_bytes = long_->requests.front().frame().size();
    }
    outcome.answer_bytes = frame.size();
    if (publisher_) {
      // As the Python path publishes it: the Controls when they were taken, now the state after the steps and each
      // answer.
      const std::int64_t wall = wall_clock_nanoseconds();
      if (mujoco_state_) {
        encode_mujoco_state(time, steps_before + outcome.steps, *mujoco_state_, mujoco_state_bytes_);
        queue_published(kStateChannel, mujoco_state_bytes_, wall, header_nanoseconds(time));
      }
      for (std::size_t i = 0; i < long_->requests.size(); ++i) {
        queue_published(kSensorChannel, frame, wall, header_nanoseconds(time));
      }
    }
    long_.reset();
    return !config_.trace && time < config_.stop_after;
  };
  // Between two chunks: what waits is served, for at most a chunk's time in all (the next run goes on with it
  // after a request handed back); false when a request goes to the caller.
  const auto serve_between_chunks = [&] {
    while (Clock::now() < long_->serve_until) {
      Offered waiting = server.receive_offering(std::chrono::milliseconds(0), answer);
      if (waiting.answered) continue;
      if (waiting.request) {
        if (!take(std::move(waiting))) return false;
        continue;
      }
      if (!readers.others_wait()) break;
      // The controller waits for its answer, not to send: the readers need no share of its time.
      answer_reader(*readers.take_any());
    }
    long_->serve_until = Clock::time_point{};
    return true;
  };
  // The request the caller handed over is offered to the answerer as the server offers one that arrives.
  bool serving = true;
  if (first && first->through_channel()) throw Error("a request handed to the hot path must have come through the socket");
  if (first) {
    Offered offered;
    if (std::optional<std::string> frame = answer(first->peer(), first->frame())) {
      server.reply_frame(*first, *frame);
      offered.answered = true;
    } else {
      offered.request = std::move(first);
    }
    serving = take(std::move(offered));
  }
  // A round the caller completed (its last Control applied there, or a controller that left or lapsed no longer
  // holding it back) is stepped first, as one completed here.
  if (serving && rounds && !long_ && !held_ && !step_round()) serving = false;
  while (serving) {
    const auto now = Clock::now();
    if (!pending_.empty() && now >= publish_due_) flush_published();
    if (held_ && (now < deadline || !pacing || due_at(held_->time) - now <= longest_hold)) {
      if (!serve_while_held(now)) break;
      continue;
    }
    if (now >= deadline) break;
    if (long_) {
      if (long_->serve_until != Clock::time_point{}) {
        if (!serve_between_chunks()) break;
        continue;
      }
      if (!step_chunk()) break;
      if (long_) {
        long_->serve_until =
            Clock::now() + std::chrono::duration_cast<Clock::duration>(Seconds(config_.chunk_seconds));
      }
      continue;
    }
    if (readers.others_wait() && readers.may_serve(now)) {
      // The controller's request, if one came meanwhile, goes first.
      Offered waiting = server.receive_offering(std::chrono::milliseconds(0), answer);
      if (waiting.answered || waiting.request) {
        if (!take(std::move(waiting))) break;
        continue;
      }
      answer_reader(readers.serve_other(now));
      continue;
    }
    auto until = readers.others_wait() ? std::min(deadline, readers.due()) : deadline;
    if (!pending_.empty()) until = std::min(until, publish_due_);
    const auto left = std::max(std::chrono::ceil<std::chrono::milliseconds>(until - now), std::chrono::milliseconds(0));
    Offered offered = through_channel ? receive_either(left) : server.receive_offering(left, answer);
    // Nothing came: the time is up, or the next read is due (both seen above).
    if (!offered.answered && !offered.request) continue;
    if (!take(std::move(offered))) break;
  }
  // Leaving: the reads still waiting are answered with the state as it is now (nothing has changed it since).
  if (outcome.failure.empty()) {
    for (const Request& reader : readers.take_others()) answer_reader(reader);
  } else {
    std::deque<Request> unanswered = readers.take_others();
    outcome.unanswered_reads.assign(std::make_move_iterator(unanswered.begin()),
                                    std::make_move_iterator(unanswered.end()));
  }
  if (!pending_.empty()) flush_published();  // before Python publishes anything after it
  if (rounds && outcome.failure.empty()) {
    // Controls wait applied: the caller finds the state settled, as it leaves it to run().
    try {
      stepper_.settle();
    } catch (const std::exception& e) {
      outcome.failure = e.what();
    }
  }
  if (long_) {
    outcome.long_steps = long_->steps;
    outcome.long_taken = long_->taken;
  }
  outcome.answer_held = held_.has_value();
  if (last_control != Clock::time_point{}) outcome.since_last_control = Clock::now() - last_control;
  if (outcome.rounds > 0) outcome.since_last_round = Clock::now() - last_round;
  return outcome;
}

HotPathOutcome HotPath::run_free(Server& server, const std::string& peer, std::chrono::milliseconds return_after,
                                 const HotPathFreeRun& free) {
  if (publisher_ && !free.states) throw Error("a published free run needs the states its observer sees");
  if (!(free.time_step > 0.0)) throw Error("a free run needs a positive time step");
  if (free.clock == nullptr) throw Error("a free run needs its clock");
  using Clock = std::chrono::steady_clock;
  HotPathOutcome outcome;
  const auto deadline = Clock::now() + return_after;
  // Without a speed, every step is due at once and none is late.
  RunClock& clock = *free.clock;
  const std::uint64_t missed_before = clock.deadlines_missed();
  stepper_.assume_settled();
  state_.clear();  // the caller may have changed the state since the last run
  bool fresh = free.fresh_control;
  double time = stepper_.time();
  Clock::time_point last_control{};
  const Server::Answerer answer = [&](const std::string& from, std::string_view payload) -> std::optional<std::string> {
    std::uint64_t steps = 0;
    if (from != peer || (!reader_->read(payload, targets_, config_.max_steps, steps) &&
                         (is_sensor_request(payload) || !read_decoded(payload, steps)))) {
      // Traced, reads go to the caller, which logs them as it serves them.
      if (config_.trace || !is_sensor_request(payload)) return std::nullopt;
      ++outcome.reads;
      const std::string& frame = state_frame();
      if (publisher_) publish_read(payload, frame);
      return frame;
    }
    // A value the simulation cannot take, a mocap body's zero quaternion: the caller refuses the Control, naming it.
    if (scatter_.refuses(targets_.values, targets_.values_set)) return std::nullopt;
    const std::int64_t received_ns = publisher_ ? wall_clock_nanoseconds() : 0;
    if (!apply(outcome)) {
      ++outcome.error_answers;
      std::string failed = failed_step_frame(outcome.failure);
      if (publisher_) {
        queue_published(kControlChannel, std::string(payload), received_ns, FramePublisher::kNoTime);
        queue_published(kErrorChannel, failed, wall_clock_nanoseconds(), FramePublisher::kNoTime);
      }
      return failed;
    }
    stepper_.unsettle();  // the answer reads the state with the controls applied
    fresh = true;
    ++outcome.controls;
    last_control = Clock::now();
    std::string frame = state_frame();
    if (publisher_) {
      // Queued now, flushed after the answer is sent.
      queue_published(kControlChannel, std::string(payload), received_ns, FramePublisher::kNoTime);
      queue_published(kSensorChannel, frame, wall_clock_nanoseconds(), header_nanoseconds(stepper_.time()));
    }
    outcome.request_bytes = payload.size();
    outcome.answer_bytes = frame.size();
    if (config_.trace) {
      outcome.request_frame.assign(payload.data(), payload.size());
      outcome.answer_frame = frame;
    }
    return frame;
  };
  // Takes what a wait brought: false when the loop must end (a request for the caller, a failure, a first clamp).
  const auto take = [&](Offered offered) {
    if (offered.request) {
      outcome.request = std::move(offered.request);
      return false;
    }
    return outcome.failure.empty() && outcome.first_clamped.empty() && !config_.trace;
  };
  for (;;) {
    const auto now = Clock::now();
    if (!pending_.empty() && now >= publish_due_) flush_published();
    const double step_time = time + free.time_step;
    if (clock.delay_until(step_time, free.late_after, now) == 0.0) {  // due: counted when late
      try {
        state_.clear();
        stepper_.step(1);
      } catch (const std::exception& e) {
        outcome.failure = e.what();
        break;
      }
      ++outcome.steps;
      if (!fresh) ++outcome.steps_without_control;
      fresh = false;
      time = stepper_.time();
      outcome.simulated_time = time;
      if (publisher_ && free.states->take() && mujoco_state_) {
        encode_mujoco_state(time, free.steps_before + outcome.steps, *mujoco_state_, mujoco_state_bytes_);
        queue_published(kStateChannel, mujoco_state_bytes_, wall_clock_nanoseconds(), header_nanoseconds(time));
      }
      if (time >= config_.stop_after) break;
      // Requests that came meanwhile are answered before the next step, however late it is.
      Offered waiting = server.receive_offering(std::chrono::milliseconds(0), answer);
      if ((waiting.answered || waiting.request) && !take(std::move(waiting))) break;
      continue;
    }
    if (now >= deadline) break;
    auto until = std::min(deadline, clock.due_at(step_time));
    if (!pending_.empty()) until = std::min(until, publish_due_);
    const auto left = std::max(std::chrono::ceil<std::chrono::milliseconds>(until - now), std::chrono::milliseconds(0));
    Offered offered = server.receive_offering(left, answer);
    if (!offered.answered && !offered.request) continue;
    if (!take(std::move(offered))) break;
  }
  if (!pending_.empty()) flush_published();  // before Python publishes anything after it
  if (outcome.failure.empty()) {
    // The caller finds the state settled, as it leaves it to run_free().
    try {
      stepper_.settle();
    } catch (const std::exception& e) {
      outcome.failure = e.what();
    }
  }
  outcome.fresh_control = fresh;
  outcome.deadlines_missed = clock.deadlines_missed() - missed_before;
  if (outcome.controls > 0) outcome.since_last_control = Clock::now() - last_control;
  return outcome;
}

bool HotPath::read_decoded(std::string_view payload, std::uint64_t& steps) {
  // Another encoding (a deprecated value list, fields out of order, a repeated field): read as the caller reads it,
  // so that a Control is applied in one place however it is encoded. One that does not fit is the caller's to
  // refuse, naming the problem; one asking for images is the caller's to render.
  try {
    Message message = decode(payload);
    const auto* control = std::get_if<ControlMessage>(&message);
    if (control == nullptr || !control->images.empty() || control->steps > config_.max_steps) return false;
    steps = controls_.read(*control, targets_);
    return true;
  } catch (const ProtocolError&) {
    return false;
  }
}

std::uint64_t HotPath::steps_before_stop(std::uint64_t steps) const {
  if (!(config_.time_step > 0.0) || !std::isfinite(config_.stop_after)) return steps;
  const double to_stop = std::ceil((config_.stop_after - stepper_.time()) / config_.time_step - 1e-9);
  if (to_stop >= static_cast<double>(steps)) return steps;
  return to_stop < 1.0 ? 1 : static_cast<std::uint64_t>(to_stop);
}

HotPathOutcome HotPath::start_chunks(std::uint64_t steps) { return begin_chunks(steps, true); }

HotPathOutcome HotPath::start_applied_chunks(std::uint64_t steps) { return begin_chunks(steps, false); }

HotPathOutcome HotPath::begin_chunks(std::uint64_t steps, bool apply_first) {
  HotPathOutcome outcome;
  // As step_checked(): a paced answer held for its time (of a controller gone) stays held.
  if (long_) throw Error("a Control is in progress: no other can be stepped");
  if (steps <= StepChunks::kFirst || steps > config_.max_steps) return outcome;  // not one to take in chunks
  stepper_.assume_settled();
  state_.clear();  // the caller may have changed the state since the last run
  if (apply_first) {
    if (!apply(outcome)) return answered({}, outcome);
    ++outcome.controls;
  }
  long_.emplace(LongControl{{}, false, steps, steps_before_stop(steps), 0, StepChunks(config_.chunk_seconds), {},
                            std::nullopt, true});
  outcome.long_steps = steps;
  return outcome;
}

HotPathOutcome HotPath::step_checked(std::uint64_t steps) {
  HotPathOutcome outcome;
  // A paced answer held for its time is already made (its controller gone, another took over): it stays held.
  if (long_) throw Error("a Control is in progress: no other can be stepped");
  if (steps > config_.max_steps) {
    throw Error("a Control of " + std::to_string(steps) + " steps is beyond the " +
                std::to_string(config_.max_steps) + " a Control may ask for");
  }
  stepper_.assume_settled();
  state_.clear();  // the caller may have changed the state since the last run
  std::string frame;
  if (steps > 0) {
    frame = serve(steps, outcome);
  } else if (apply(outcome)) {
    // A free run's Control takes no step: answered with the state with its controls applied, as run_free() does.
    stepper_.unsettle();
    frame = read_state(outcome);
    if (outcome.failure.empty()) ++outcome.controls;
  }
  return answered(std::move(frame), outcome);
}

HotPathOutcome HotPath::apply_checked() {
  HotPathOutcome outcome;
  if (long_) throw Error("a Control is in progress: no other can be applied");
  if (!apply(outcome)) return answered({}, outcome);
  stepper_.unsettle();  // reads before the round see the controls applied, as the step will
  ++outcome.controls;
  return outcome;
}

HotPathOutcome HotPath::step_applied(std::uint64_t steps) {
  HotPathOutcome outcome;
  if (long_) throw Error("a Control is in progress: no other can be stepped");
  if (steps > config_.max_steps) {
    throw Error("a round of " + std::to_string(steps) + " steps is beyond the " + std::to_string(config_.max_steps) +
                " a Control may ask for");
  }
  // The caller settled the state the controls were applied to: the step starts from there.
  stepper_.assume_settled();
  state_.clear();
  return answered(steps > 0 ? step(steps, outcome) : read_state(outcome), outcome);
}

bool HotPath::end_long_control(Server& server, const std::string& text) {
  if (!long_) return false;
  const std::string frame = encode(ErrorMessage{static_cast<int>(ErrorCode::SessionEnded), text});
  for (const Request& request : long_->requests) {
    server.reply_frame(request, frame);
    if (publisher_) queue_published(kErrorChannel, frame, wall_clock_nanoseconds(), FramePublisher::kNoTime);
  }
  long_.reset();
  if (publisher_) flush_published();
  return true;
}

bool HotPath::send_held(Server& server) {
  if (!held_) return false;
  reply_held(server);
  if (publisher_) flush_published();
  held_.reset();
  return true;
}

void HotPath::hold(Request request, std::string frame, double time) {
  if (held_ || long_) throw Error("an answer is held, or a Control of many steps is in progress: no other answer can be "
                                  "held");
  if (request.through_channel()) throw Error("an answer through the shared channel cannot be held");
  std::vector<Request> requests;
  requests.push_back(std::move(request));
  held_.emplace(HeldAnswer{std::move(requests), std::move(frame), time, {}, false});
}

void HotPath::reply_held(Server& server) {
  for (const Request& request : held_->requests) server.reply_frame(request, held_->frame);
  if (!publisher_) return;
  // Each answer as the Python path publishes it once sent; a held answer is always a stepped state.
  const std::int64_t wall = wall_clock_nanoseconds();
  for (std::size_t i = 0; i < held_->requests.size(); ++i) {
    queue_published(kSensorChannel, held_->frame, wall, header_nanoseconds(held_->time));
  }
}

const std::string& HotPath::state_frame() {
  if (state_.empty()) {
    stepper_.settle();
    gather_.gather(sensor_values_);
    state_ = sensors_.encode(sensor_values_, stepper_.time());
  }
  return state_;
}

std::string HotPath::serve(std::uint64_t steps, HotPathOutcome& outcome) {
  if (!apply(outcome)) return failed_step_frame(outcome.failure);
  std::string frame = step(steps, outcome);
  if (!outcome.failure.empty()) return failed_step_frame(outcome.failure);
  ++outcome.controls;
  return frame;
}

bool HotPath::apply(HotPathOutcome& outcome) {
  try {
    const std::vector<std::size_t> outside =
        scatter_.apply(targets_.values, targets_.values_set, targets_.events_set, targets_.events_on);
    if (scatter_.pose_count() > 0) stepper_.repositioned();  // the next step starts afresh, from the new poses
    outcome.clamped += outside.size();
    for (const std::size_t i : outside) {
      if (!clamped_before_[i]) {
        clamped_before_[i] = true;
        outcome.first_clamped.push_back(i);
      }
    }
    state_.clear();
    return true;
  } catch (const std::exception& e) {
    outcome.failure = e.what();
  } catch (...) {
    outcome.failure = "unknown exception";
  }
  return false;
}

std::string HotPath::step(std::uint64_t steps, HotPathOutcome& outcome) {
  try {
    state_.clear();
    stepper_.step(steps);
    stepper_.settle();
    gather_.gather(sensor_values_);
    const double time = stepper_.time();
    std::string frame = sensors_.encode(sensor_values_, time);
    state_ = frame;
    outcome.steps += steps;
    outcome.simulated_time = time;
    return frame;
  } catch (const std::exception& e) {
    outcome.failure = e.what();
  } catch (...) {
    outcome.failure = "unknown exception";
  }
  return {};
}

std::string HotPath::read_state(HotPathOutcome& outcome) {
  try {
    std::string frame = state_frame();
    outcome.simulated_time = stepper_.time();
    return frame;
  } catch (const std::exception& e) {
    outcome.failure = e.what();
    return {};
  }
}

HotPathOutcome& HotPath::answered(std::string frame, HotPathOutcome& outcome) {
  if (!outcome.failure.empty()) {
    frame = failed_step_frame(outcome.failure);
    ++outcome.error_answers;
  }
  outcome.answer_bytes = frame.size();
  outcome.answer_frame = std::move(frame);
  return outcome;
}

}  // namespace coupler
