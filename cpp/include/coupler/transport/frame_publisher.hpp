#pragma once
// Publishing a server's traffic to any number of subscribers (a recorder, a
// plotter, a dashboard) on a ZeroMQ XPUB socket, without ever making the
// serving thread wait.
//
// Every message is one ZeroMQ frame: topic, NUL, a 32-byte header (the
// sequence number over all topics, the sequence number within the topic, the
// wall clock and the simulated time in nanoseconds, -1 where there is none;
// little-endian uint64, uint64, int64, int64) and the payload. A subscriber
// that falls `hwm` messages behind loses messages, for itself alone; it
// counts them from the sequence numbers. Each new subscription is answered
// with the scene message (looked for at most every 50 ms while frames flow),
// and close() sends the end message: the topic, NUL and the number of frame
// messages sent (uint64).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/transport/curve_keys.hpp>

namespace coupler {

// One address the publisher listens on.
struct PublisherBinding {
  static constexpr int kDefaultHwm = 1000;  // ZeroMQ's own default

  std::string address;
  // Messages queued for each subscriber on this address before it loses some.
  int hwm = kDefaultHwm;
  // With a key pair, only CURVE clients whose public key (Z85) is in
  // `curve_allowed_clients` may subscribe here, as on a Server's socket.
  std::optional<CurveKeyPair> curve_key_pair;
  std::vector<std::string> curve_allowed_clients;
  // Told of each refused subscriber (from the authentication thread); by
  // default written to std::clog.
  std::function<void(const std::string&)> on_refused_client;
};

class FramePublisher {
 public:
  static constexpr std::int64_t kNoTime = -1;
  static constexpr std::size_t kHeaderBytes = 32;
  static constexpr std::string_view kSceneTopic = "/coupler/scene";
  static constexpr std::string_view kEndTopic = "/coupler/end";
  // How often new subscriptions are looked for while frames flow.
  static constexpr std::chrono::milliseconds kSubscriptionsEvery{50};

  // `scene`: the parts of the scene message after its topic (JSON metadata,
  // then name, media type and data of each attachment). `linger`: how long
  // close() gives queued messages to leave.
  explicit FramePublisher(std::vector<std::string> scene,
                          std::chrono::milliseconds linger = std::chrono::milliseconds(1000));
  ~FramePublisher();
  FramePublisher(const FramePublisher&) = delete;
  FramePublisher& operator=(const FramePublisher&) = delete;

  // Listens on `binding.address`; returns the bound endpoint (the port
  // filled in). Throws coupler::Error when it cannot be bound.
  std::string bind(const PublisherBinding& binding);

  // Waits up to `timeout` until `count` subscriptions have arrived (sending
  // the scene to the new ones); true when they have.
  bool wait_for_subscribers(std::uint64_t count, std::chrono::milliseconds timeout);

  // Sends one frame message; never blocks.
  void publish(std::string_view topic, std::string_view payload, std::int64_t wall_ns, std::int64_t simulated_ns);

  // Sends the end message (safe to repeat: a subscriber that is behind may
  // lose it); never blocks.
  void send_end();
  // Sends the end and closes; safe to call twice. Nothing may be published after.
  void close();
  bool closed() const noexcept;

  std::uint64_t sent() const noexcept;           // frame messages sent
  std::uint64_t subscriptions() const noexcept;  // subscriptions seen in all

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Seconds as the header's nanoseconds: rounded to the nearest (ties to
// even), never negative.
std::int64_t header_nanoseconds(double seconds);
// The wall clock now, in nanoseconds since the epoch.
std::int64_t wall_clock_nanoseconds();

}  // namespace coupler
