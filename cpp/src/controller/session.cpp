#include <coupler/controller/session.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/error.hpp>

namespace coupler {
namespace {

[[noreturn]] void unexpected(const Message& answer, const char* expected) {
  if (const auto* error = std::get_if<ErrorMessage>(&answer)) throw RemoteError(error->code, error->text);
  throw ProtocolError(ErrorCode::UnexpectedMessage,
                      std::string("expected ") + expected + ", got " + std::string(to_string(type_of(answer))));
}

HandshakeMessage expect_handshake(const Message& answer) {
  const auto* handshake = std::get_if<HandshakeMessage>(&answer);
  if (!handshake) unexpected(answer, "Handshake");
  if (handshake->version != kProtocolVersion) {
    throw ProtocolError(ErrorCode::VersionNotSupported,
                        "server speaks protocol version " + std::to_string(handshake->version));
  }
  return *handshake;
}

// Only these may be sent again after a reconnect: they change nothing.
bool changes_nothing(MessageType type) {
  return type == MessageType::SensorRequest || type == MessageType::HandshakeInit;
}

}  // namespace

Session::Session(const std::string& address, SessionOptions options)
    : options_(std::move(options)), client_(address, options_.client) {
  use_handshake(expect_handshake(exchange_once(handshake_init())));
}

namespace {

// The ring `handshake` announces, mapped, when the server at `address` is on this host for certain; `log` told
// why not when it cannot be mapped.
std::shared_ptr<const SharedRingReader> mapped_ring(const std::string& address, const HandshakeMessage& handshake,
                                                    const std::function<void(const std::string&)>& log) {
  if (!on_this_host(address) || !handshake.shared_memory || !handshake.supports(kExtensionSharedMemory)) return nullptr;
  try {
    return std::make_shared<const SharedRingReader>(*handshake.shared_memory);
  } catch (const Error& error) {
    // Another user or container: images come through the socket.
    if (log) log(std::string("images come through the socket: ") + error.what());
    return nullptr;
  }
}

}  // namespace

HandshakeInitMessage Session::handshake_init() const {
  HandshakeInitMessage init;
  init.shared_channel = options_.shared_channel && on_this_host(client_.address());
  return init;
}

void Session::use_handshake(HandshakeMessage handshake) {
  handshake_ = std::move(handshake);
  shared_ = options_.shared_memory ? mapped_ring(client_.address(), handshake_, options_.log) : nullptr;
  channel_.reset();
  channel_ready_ = false;
  if (handshake_init().shared_channel && !handshake_.shared_channel.empty()) {
    try {
      channel_ = std::make_unique<SharedChannelClient>(handshake_.shared_channel);
    } catch (const Error&) {
      // Another user or container: everything goes through the socket.
    }
  }
  try {
    layout_ = std::make_shared<SensorLayout>(handshake_);
  } catch (const Error&) {
    layout_.reset();  // a sensor type no reading can carry: every answer goes through decode()
  }
}

Session::Session(Session&& other) noexcept
    : options_(std::move(other.options_)),
      client_(std::move(other.client_)),
      stats_(std::move(other.stats_)),
      handshake_(std::move(other.handshake_)),
      layout_(std::move(other.layout_)),
      shared_(std::move(other.shared_)),
      channel_(std::move(other.channel_)),
      channel_ready_(other.channel_ready_),
      open_(other.open_) {
  other.open_ = false;
}

Session& Session::operator=(Session&& other) noexcept {
  if (this != &other) {
    try {
      close();
    } catch (const Error&) {
      // The old connection is going away either way.
    }
    options_ = std::move(other.options_);
    client_ = std::move(other.client_);
    stats_ = std::move(other.stats_);
    handshake_ = std::move(other.handshake_);
    layout_ = std::move(other.layout_);
    shared_ = std::move(other.shared_);
    channel_ = std::move(other.channel_);
    channel_ready_ = other.channel_ready_;
    open_ = other.open_;
    other.open_ = false;
  }
  return *this;
}

Session::~Session() {
  try {
    close();
  } catch (const Error&) {
    // Nothing to do about a server that cannot be told goodbye.
  }
}

Message Session::exchange(const Message& request) {
  try {
    return exchange_once(request);
  } catch (const TimeoutError& timeout) {
    recover(timeout, type_of(request));
  }
  return exchange_once(request);
}

void Session::recover(const TimeoutError& timeout, MessageType request) {
  if (options_.reconnect_attempts <= 0) throw;
  reestablish(timeout);
  if (!changes_nothing(request)) {
    throw ReconnectedError(std::string("no answer to a ") + std::string(to_string(request)) + " from " +
                           client_.address() +
                           "; the session reconnected with a new handshake (the server may have restarted), and the "
                           "request was not sent again since it may have been applied");
  }
}

void Session::reestablish(const TimeoutError& cause) {
  for (int attempt = 1; attempt <= options_.reconnect_attempts; ++attempt) {
    try {
      reconnect();
      return;
    } catch (const TimeoutError&) {
      // The server is not back yet; each attempt waits one timeout.
    }
  }
  throw TimeoutError(std::string(cause.what()) + "; " + std::to_string(options_.reconnect_attempts) +
                     " reconnect attempts found no server");
}

void Session::reconnect(bool accept_scene_change) {
  client_.reconnect();
  open_ = true;  // a fresh connection: a closed session is open again
  channel_.reset();
  channel_ready_ = false;
  HandshakeMessage handshake = expect_handshake(exchange_once(handshake_init()));
  // A restarted server offers a ring and a channel of its own: the same scene all the same.
  HandshakeMessage unshared = handshake;
  unshared.shared_memory = handshake_.shared_memory;
  unshared.shared_channel = handshake_.shared_channel;
  if (!accept_scene_change && encode(Message(unshared)) != encode(Message(handshake_))) {
    throw SceneChangedError("the server at " + client_.address() +
                            " now describes a different scene than this session was using; reconnecting with "
                            "accept_scene_change accepts it");
  }
  use_handshake(std::move(handshake));
}

Message Session::exchange_once(const Message& request) {
  if (options_.trace) options_.trace("send", request);
  Message answer = decode(exchange_frame(encode(request)));
  if (options_.trace) options_.trace("recv", answer);
  return answer;
}

std::string Session::exchange_frame(const std::string& request) {
  if (!open_) throw Error("the session with " + client_.address() + " is closed: open a new one");
  using Clock = std::chrono::steady_clock;
  const auto sent = Clock::now();
  client_.send_frame(request);
  std::string answer = [&] {
    if (options_.polling) return receive_polling(sent);
    std::string received = client_.receive_frame(options_.client.timeout);
    stats_.add_blocked(Clock::now() - sent);
    return received;
  }();
  stats_.add_round_trip(Clock::now() - sent);
  return answer;
}

std::string Session::exchange_plain(const std::string& request) {
  if (!open_ || !channel_ || !channel_ready_ || request.size() > channel_->capacity()) return exchange_frame(request);
  using Clock = std::chrono::steady_clock;
  const auto sent = Clock::now();
  std::string answer;
  try {
    answer = std::string(channel_->exchange(request, options_.client.timeout));
  } catch (const TimeoutError&) {
    // Given up: a late answer would be read as the next request's. Everything goes through the socket now.
    channel_.reset();
    channel_ready_ = false;
    throw;
  }
  // Empty: the server's hot path left it to the socket path (nothing was applied), which serves it as ever.
  if (answer.empty()) return exchange_frame(request);
  stats_.add_blocked(Clock::now() - sent);  // asleep in the futex until the answer came
  stats_.add_round_trip(Clock::now() - sent);
  return answer;
}

std::string Session::receive_polling(std::chrono::steady_clock::time_point sent) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = sent + options_.client.timeout;
  for (;;) {
    const auto start = Clock::now();
    std::optional<std::string> answer = client_.try_receive_frame();
    const auto polled = Clock::now();
    stats_.add_blocked(polled - start);
    if (answer) return std::move(*answer);
    if (polled >= deadline) {
      throw TimeoutError("no answer from " + client_.address() + " within " +
                         std::to_string(options_.client.timeout.count()) + " ms");
    }
    // Sleeps until the answer arrives or 1 ms passes: no spinning, no added latency.
    client_.wait(std::chrono::milliseconds(1));
    stats_.add_idle(Clock::now() - polled);
  }
}

SensorReadings Session::expect_sensors(const Message& request) { return sensors_from(exchange(request)); }

SensorReadings Session::sensors_from(Message answer) {
  bool after_reset = false;
  if (std::holds_alternative<ResetMessage>(answer)) {
    // The simulation was reset from its side; fetch the state it now has.
    after_reset = true;
    answer = exchange(SensorRequestMessage{});
  }
  auto* sensors = std::get_if<SensorMessage>(&answer);
  if (!sensors) unexpected(answer, "Sensor");
  return SensorReadings(handshake_, std::move(*sensors), after_reset, shared_);
}

void Session::check_steps(std::uint64_t steps) const {
  if (steps > 1 && !handshake_.supports(kExtensionSteps)) {
    const std::string server = handshake_.server ? "the server '" + handshake_.server->name + "' " +
                                                       handshake_.server->version
                                                 : std::string("this Click server");
    throw ExtensionNotSupportedError(kExtensionSteps, std::to_string(steps) + " steps per Control", server);
  }
}

SensorReadings Session::step(const Controls& controls) {
  check_steps(controls.steps());
  if (options_.trace || !layout_) return expect_sensors(controls.message());
  // Not controls.frame(), whose bytes are the same: sent from here, it measured 3 us slower per round trip
  // on the static scene over ipc (perf.rtt, the democlient), with no more CPU on either side.
  return step_plain(encode(controls.message()));
}

SensorReadings Session::step_frame(const std::string& control, std::uint64_t steps,
                                   const std::vector<ImageRequest>& images) {
  if (!images.empty()) {
    auto message = decode(control);
    auto* decoded = std::get_if<ControlMessage>(&message);
    if (!decoded) throw Error("step_frame: the frame is a " + std::string(to_string(type_of(message))) + ", not a Control");
    return step_with_images(std::move(*decoded), images);
  }
  check_steps(steps);
  if (options_.trace || !layout_) return expect_sensors(decode(control));
  return step_plain(control);
}

SensorReadings Session::step_plain(const std::string& control) {
  // The common case without a message either way: the Sensor frame read
  // straight into the layout's numbers. Anything else (a Reset, an error, a
  // frame of another shape) is decoded as before.
  std::string answer;
  try {
    answer = exchange_plain(control);
  } catch (const TimeoutError& timeout) {
    recover(timeout, MessageType::Control);
    throw;  // not reached: a Control is never sent again
  }
  std::vector<double> values(layout_->size());
  if (const auto time = layout_->read(answer, values.data())) {
    // Stepped: the server now serves this controller's plain requests through its channel too.
    channel_ready_ = channel_ != nullptr;
    return SensorReadings(handshake_, layout_, std::move(values), *time);
  }
  return sensors_from(decode(answer));
}

SensorReadings Session::sensors() {
  if (!channel_ready_ || options_.trace) return expect_sensors(SensorRequestMessage{});
  return sensors_from(decode(exchange_plain(encode(SensorRequestMessage{}))));
}

void Session::check_images(const std::vector<ImageRequest>& images) const {
  if (images.empty() || handshake_.supports(kExtensionImages)) return;
  const std::string server = handshake_.server ? "the server '" + handshake_.server->name + "' " +
                                                     handshake_.server->version
                                               : std::string("this Click server");
  throw ExtensionNotSupportedError(kExtensionImages, "images of " + images.front().camera, server);
}

SensorReadings Session::step(const Controls& controls, const std::vector<ImageRequest>& images) {
  if (images.empty()) return step(controls);
  return step_with_images(controls.message(), images);
}

SensorReadings Session::step_with_images(ControlMessage control, const std::vector<ImageRequest>& images) {
  check_images(images);
  check_steps(control.steps);
  control.images = images;
  control.shared_memory = shared_ != nullptr;
  if (!images_through_channel()) return expect_sensors(control);
  std::string answer;
  try {
    answer = exchange_plain(encode(Message(control)));
  } catch (const TimeoutError& timeout) {
    recover(timeout, MessageType::Control);
    throw;  // not reached: a Control is never sent again
  }
  return sensors_from(decode(answer));
}

SensorReadings Session::sensors(const std::vector<ImageRequest>& images) {
  check_images(images);
  const SensorRequestMessage request{images, shared_ != nullptr};
  if (!images_through_channel()) return expect_sensors(request);
  return sensors_from(decode(exchange_plain(encode(Message(request)))));
}

bool Session::images_through_channel() const noexcept {
  // Their images come through the ring, so the answer fits the channel's frames.
  return channel_ready_ && shared_ != nullptr && !options_.trace;
}

namespace {

// The quaternion (w, x, y, z) of roll, pitch and yaw, as the server converts
// a quaternion to RPY (z-y-x): the inverse, to within rounding.
std::array<double, 4> rpy_to_quaternion(double roll, double pitch, double yaw) {
  const double cr = std::cos(roll / 2), sr = std::sin(roll / 2);
  const double cp = std::cos(pitch / 2), sp = std::sin(pitch / 2);
  const double cy = std::cos(yaw / 2), sy = std::sin(yaw / 2);
  return {cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
          cr * cp * sy - sr * sp * cy};
}

bool is_mocap(ValueType type) { return type == ValueType::MocapPosition || type == ValueType::MocapQuaternion; }

}  // namespace

Controls Session::controls() {
  Controls controls(handshake_);
  // Objects whose mocap controls start at the body's current pose.
  std::vector<std::string> mocap;
  for (const auto& [name, object] : handshake_.objects) {
    for (const ValueType type : object.control_types) {
      if (is_mocap(type)) {
        mocap.push_back(name);
        break;
      }
    }
  }
  // (object, control, joint) of each position control that names the joint it holds.
  std::vector<std::tuple<std::string, std::string, std::string>> holding;
  for (const auto& [name, object] : handshake_.objects) {
    const std::size_t count = std::min({object.controls.size(), object.control_types.size(),
                                        object.control_targets.size()});
    for (std::size_t i = 0; i < count; ++i) {
      const ValueType type = object.control_types[i];
      if (type != ValueType::Angle && type != ValueType::LinearPosition) continue;
      const std::string& target = object.control_targets[i];
      const auto& joints = object.joint_sensors;
      if (std::find(joints.begin(), joints.end(), target) == joints.end()) continue;
      holding.emplace_back(name, object.controls[i], target);
    }
  }
  if (holding.empty() && mocap.empty()) return controls;
  const SensorReadings readings = sensors();
  for (const auto& [name, control, joint] : holding) controls.set(name, control, readings.angle(name, joint));
  for (const std::string& name : mocap) {
    const ObjectDescription& object = handshake_.object(name);
    const std::vector<double>& position = readings.object_sensor(name, ValueType::Position);
    const std::vector<double>& rpy = readings.object_sensor(name, ValueType::RPY);
    const std::array<double, 4> quaternion = rpy_to_quaternion(rpy.at(0), rpy.at(1), rpy.at(2));
    std::size_t coordinate = 0, component = 0;
    for (std::size_t i = 0; i < object.controls.size() && i < object.control_types.size(); ++i) {
      if (object.control_types[i] == ValueType::MocapPosition && coordinate < 3) {
        controls.set(name, object.controls[i], position.at(coordinate++));
      } else if (object.control_types[i] == ValueType::MocapQuaternion && component < 4) {
        controls.set(name, object.controls[i], quaternion[component++]);
      }
    }
  }
  return controls;
}

void Session::reset(std::vector<double> qpos, std::vector<double> qvel) {
  ResetMessage request;
  request.qpos = std::move(qpos);
  request.qvel = std::move(qvel);
  reset_with(request);
}

void Session::reset_to_keyframe(const std::string& name, std::vector<double> qpos, std::vector<double> qvel) {
  ResetMessage request;
  request.keyframe = name;
  request.qpos = std::move(qpos);
  request.qvel = std::move(qvel);
  reset_with(request, "'" + name + "'");
}

void Session::reset_to_keyframe(std::uint32_t index, std::vector<double> qpos, std::vector<double> qvel) {
  ResetMessage request;
  request.keyframe_index = index;
  request.qpos = std::move(qpos);
  request.qvel = std::move(qvel);
  reset_with(request, std::to_string(index));
}

void Session::reset_with(const ResetMessage& request, const std::string& keyframe) {
  if (!keyframe.empty() && !handshake_.supports(kExtensionKeyframes)) {
    const std::string server = handshake_.server ? "the server '" + handshake_.server->name + "' " +
                                                       handshake_.server->version
                                                 : std::string("this Click server");
    throw ExtensionNotSupportedError(kExtensionKeyframes, "a Reset to keyframe " + keyframe, server);
  }
  channel_ready_ = false;  // the reset simulation waits for a step through the socket
  const Message answer = exchange(request);
  if (!std::holds_alternative<ResetMessage>(answer)) unexpected(answer, "Reset");
}

void Session::close() {
  if (!open_) return;
  open_ = false;
  channel_.reset();
  channel_ready_ = false;
  // An ErrorMessage from a controller means "leaving"; the server sends no answer.
  try {
    if (handshake_.supports(kExtensionGoodbye)) {
      client_.send(ErrorMessage{static_cast<int>(ErrorCode::SessionEnded), "controller closed the session"});
    }
  } catch (...) {
    client_.close();
    throw;
  }
  client_.close();
}

}  // namespace coupler
