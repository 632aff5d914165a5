#include <coupler/session.hpp>

#include <coupler/codec.hpp>
#include <coupler/error.hpp>

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
bool changes_nothing(const Message& request) {
  const MessageType type = type_of(request);
  return type == MessageType::SensorRequest || type == MessageType::HandshakeInit;
}

}  // namespace

Session::Session(const std::string& address, SessionOptions options)
    : options_(std::move(options)), client_(address, options_.client) {
  handshake_ = expect_handshake(exchange_once(HandshakeInitMessage{}));
}

Session::Session(Session&& other) noexcept
    : options_(std::move(other.options_)),
      client_(std::move(other.client_)),
      stats_(std::move(other.stats_)),
      handshake_(std::move(other.handshake_)),
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
    if (options_.reconnect_attempts <= 0) throw;
    reestablish(timeout);
  }
  if (!changes_nothing(request)) {
    throw ReconnectedError(std::string("no answer to a ") + std::string(to_string(type_of(request))) + " from " +
                           client_.address() +
                           "; the session reconnected with a new handshake (the server may have restarted), and the "
                           "request was not sent again since it may have been applied");
  }
  return exchange_once(request);
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
  HandshakeMessage handshake = expect_handshake(exchange_once(HandshakeInitMessage{}));
  if (!accept_scene_change && encode(Message(handshake)) != encode(Message(handshake_))) {
    throw SceneChangedError("the server at " + client_.address() +
                            " now describes a different scene than this session was using; reconnect(true) accepts "
                            "it");
  }
  handshake_ = std::move(handshake);
  open_ = true;
}

Message Session::exchange_once(const Message& request) {
  using Clock = std::chrono::steady_clock;
  if (options_.trace) options_.trace("send", request);
  const auto sent = Clock::now();
  client_.send(request);
  Message answer = [&] {
    if (options_.polling) return receive_polling(sent);
    Message received = client_.receive();
    stats_.add_blocked(Clock::now() - sent);
    return received;
  }();
  stats_.add_round_trip(Clock::now() - sent);
  if (options_.trace) options_.trace("recv", answer);
  return answer;
}

Message Session::receive_polling(std::chrono::steady_clock::time_point sent) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = sent + options_.client.timeout;
  for (;;) {
    const auto start = Clock::now();
    std::optional<Message> answer = client_.try_receive();
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

SensorReadings Session::expect_sensors(const Message& request) {
  Message answer = exchange(request);
  bool after_reset = false;
  if (std::holds_alternative<ResetMessage>(answer)) {
    // The simulation was reset from its side; fetch the state it now has.
    after_reset = true;
    answer = exchange(SensorRequestMessage{});
  }
  auto* sensors = std::get_if<SensorMessage>(&answer);
  if (!sensors) unexpected(answer, "Sensor");
  return SensorReadings(handshake_, std::move(*sensors), after_reset);
}

SensorReadings Session::step(const Controls& controls) { return expect_sensors(controls.message()); }

SensorReadings Session::sensors() { return expect_sensors(SensorRequestMessage{}); }

void Session::reset() {
  const Message answer = exchange(ResetMessage{});
  if (!std::holds_alternative<ResetMessage>(answer)) unexpected(answer, "Reset");
}

void Session::close() {
  if (!open_) return;
  open_ = false;
  // An ErrorMessage from a controller means "leaving"; the server sends no answer.
  client_.send(ErrorMessage{static_cast<int>(ErrorCode::SessionEnded), "controller closed the session"});
}

}  // namespace coupler
