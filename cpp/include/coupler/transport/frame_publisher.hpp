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
// counts them from the sequence numbers. Each new connection, and it alone,
// gets the scene message first (one frame: the topic, NUL, then each part as
// its length, uint64, and its bytes), and close() sends the end message: the
// topic, NUL and the number of frame messages sent (uint64).
//
// Peers are guarded as on a Server's socket: a handshake timeout, ZMTP
// heartbeats, and at most `max_connections` subscribers at once on the
// counted addresses (newer ones are closed at once). A peer may send
// (un)subscriptions of up to kMaxSubscriptionBytes and nothing else: a larger
// message closes its connection, anything else is read and dropped at once,
// and while peers hold more than `max_topics` topics, the newest connections
// are closed until they no longer do (a peer's subscriptions are among them:
// no peer holds more). A thread of the publisher reads what peers send every few
// milliseconds, so nothing piles up while no frames flow.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <coupler/transport/curve_keys.hpp>
#include <coupler/wire/limits.hpp>

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
  // As on a Server's socket: ZMTP heartbeats (interval 0: off), and the time
  // a new connection has to finish its handshake (0: no limit).
  std::chrono::milliseconds heartbeat_interval = limits::kHeartbeatInterval;
  std::chrono::milliseconds heartbeat_timeout = limits::kHeartbeatTimeout;
  std::chrono::milliseconds handshake_timeout = limits::kHandshakeTimeout;
  // Whether its subscribers count against PublisherLimits::max_connections
  // (not for the recording writer's private address).
  bool counted = true;
};

// What the publisher's peers may hold.
struct PublisherLimits {
  static constexpr std::size_t kDefaultMaxConnections = 256;
  static constexpr std::size_t kDefaultMaxTopics = 256;
  // The largest message a peer may send: a subscription to a topic of up to
  // 1023 bytes (the publisher's own topics are under 64; a CURVE handshake's
  // commands need a few hundred).
  static constexpr std::int64_t kMaxSubscriptionBytes = 1024;

  std::size_t max_connections = kDefaultMaxConnections;
  // Distinct topics subscribed over all peers (the publisher's own topics and
  // a subscriber holds one or a few).
  std::size_t max_topics = kDefaultMaxTopics;
  // Told of refused peers (too many connections, too many subscriptions,
  // messages that are not subscriptions), at most a few lines a minute, from
  // the publisher's thread; by default written to std::clog.
  std::function<void(const std::string&)> on_refusal;
};

class FramePublisher {
 public:
  static constexpr std::int64_t kNoTime = -1;
  static constexpr std::size_t kHeaderBytes = 32;
  static constexpr std::string_view kSceneTopic = "/coupler/scene";
  static constexpr std::string_view kEndTopic = "/coupler/end";
  // How often what peers send is read, at the least.
  static constexpr std::chrono::milliseconds kPeersReadEvery{10};
  // How long close() gives queued messages to leave, by default.
  static constexpr std::chrono::milliseconds kDefaultLinger{1000};

  // `scene`: the parts of the scene message after its topic (JSON metadata,
  // then name, media type and data of each attachment). `linger`: how long
  // close() gives queued messages to leave.
  explicit FramePublisher(std::vector<std::string> scene,
                          std::chrono::milliseconds linger = kDefaultLinger,
                          PublisherLimits limits = {});
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
  std::uint64_t refused() const noexcept;        // connections closed and messages dropped by the guards
  std::size_t connections() const noexcept;      // subscribers connected now on counted addresses

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
