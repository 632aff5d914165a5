#include <coupler/transport/frame_publisher.hpp>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include <unistd.h>

#include <zmq.hpp>

#include <coupler/transport/rate_limited_log.hpp>
#include <coupler/wire/error.hpp>

#include "transport/ipc_endpoint.hpp"
#include "transport/listener_connection.hpp"
#include "transport/zap_handler.hpp"
#include "transport/zmq_socket.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the header is written by copying integers, and is little-endian"
#endif

namespace coupler {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kSubscribe = 1;    // the first byte of a subscription as XPUB passes it on
constexpr char kUnsubscribe = 0;  // and of an unsubscription
// What one look reads at most, so the lock the serving thread publishes under is never held for long.
constexpr int kMessagesPerLook = 4096;
// How long the topics of a connection closed for holding too many take to be gone, at most.
constexpr std::chrono::milliseconds kTopicsSettle{200};

void put(char* at, std::uint64_t value) { std::memcpy(at, &value, sizeof value); }

// The scene as one frame (ZeroMQ's welcome message is one): topic, NUL, then each part's length and bytes.
std::string scene_frame(const std::vector<std::string>& parts) {
  std::string frame(FramePublisher::kSceneTopic);
  frame.push_back('\0');
  for (const std::string& part : parts) {
    const std::size_t at = frame.size();
    frame.resize(at + 8);
    put(&frame[at], part.size());
    frame += part;
  }
  return frame;
}

}  // namespace

struct FramePublisher::Impl {
  PublisherLimits limits;
  // Every use of the XPUB socket, from the serving thread and the publisher's own, holds this lock.
  std::mutex socket_mutex;
  // In the process's shared context: the ZAP handler of CURVE bindings serves that context only.
  zmq::socket_t socket{detail::shared_context(), zmq::socket_type::xpub};
  std::vector<std::unique_ptr<detail::ZapRegistration>> zap;
  std::atomic<std::uint64_t> sequence{0};
  std::atomic<std::uint64_t> subscriptions{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::size_t> connections{0};
  // Few topics (one per message kind and direction): a linear search beats hashing each topic.
  std::vector<std::pair<std::string, std::uint64_t>> topic_sequences;
  bool closed = false;
  // Socket files of ipc:// addresses bound, removed on close while still the ones bound.
  std::vector<std::pair<std::string, std::optional<detail::FileIdentity>>> socket_files;

  // Read by the publisher's thread only (after construction).
  zmq::socket_t monitor{detail::shared_context(), zmq::socket_type::pair};
  std::set<std::string> topics;  // subscribed by at least one peer, as ZeroMQ's own count stands
  detail::ListenerConnections listeners;
  RateLimitedLog refusal_lines{5};
  Clock::time_point next_topic_close{};

  std::mutex state_mutex;  // guards the endpoints' flags and wakes waiters
  std::condition_variable changed;
  std::set<std::string> uncounted_endpoints;
  bool stopping = false;
  std::thread watcher;

  std::uint64_t next_in(std::string_view topic) {
    for (auto& [name, count] : topic_sequences) {
      if (name == topic) return count++;
    }
    topic_sequences.emplace_back(std::string(topic), 1);
    return 0;
  }

  void note_refusal(const std::string& kind, const std::string& line) {
    refused.fetch_add(1, std::memory_order_relaxed);
    const auto left_out = refusal_lines.admit(kind);
    if (!left_out) return;
    std::string text = line;
    if (*left_out > 0) text = refusal_lines.left_out_line(*left_out) + "; " + text;
    if (limits.on_refusal) {
      limits.on_refusal(text);
    } else {
      std::clog << "coupler publisher: " << text << '\n';
    }
  }

  // Reads what peers sent (subscriptions, and anything else, which is dropped); under socket_mutex. Returns
  // how many messages were dropped, for the caller to report once the lock is released (the report may
  // wait for Python's GIL, which a thread publishing may hold).
  std::uint64_t read_peers() {
    bool subscribed = false;
    std::uint64_t dropped = 0;
    for (int i = 0; i < kMessagesPerLook; ++i) {
      zmq::message_t message;
      if (!socket.recv(message, zmq::recv_flags::dontwait)) break;
      const char* data = message.data<char>();
      if (message.size() > 0 && (data[0] == kSubscribe || data[0] == kUnsubscribe)) {
        std::string topic(data + 1, message.size() - 1);
        if (data[0] == kSubscribe) {
          subscriptions.fetch_add(1, std::memory_order_relaxed);
          topics.insert(std::move(topic));
          subscribed = true;
        } else {
          // XPUB passes an unsubscription on once no peer holds the topic any more.
          topics.erase(topic);
        }
      } else {
        ++dropped;
      }
    }
    if (subscribed) {
      // Through the waiters' lock, so that a waiter between its check and its wait is not passed by.
      { std::lock_guard<std::mutex> lock(state_mutex); }
      changed.notify_all();
    }
    return dropped;
  }

  void start_monitor() {
    static std::atomic<int> serial{0};
    const std::string address = "inproc://coupler-publisher-monitor-" + std::to_string(serial++);
    if (zmq_socket_monitor(socket.handle(), address.c_str(),
                           ZMQ_EVENT_LISTENING | ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0) {
      throw Error("watching the publisher's connections: " + std::string(zmq_strerror(zmq_errno())));
    }
    monitor.set(zmq::sockopt::linger, 0);
    detail::checked("watching the publisher's connections", [&] { monitor.connect(address); return 0; });
  }

  bool counted(const std::string& endpoint) {
    std::lock_guard<std::mutex> lock(state_mutex);
    return uncounted_endpoints.count(endpoint) == 0;
  }

  // Reads the monitor's events: listeners bound, connections accepted and closed.
  void read_connections() {
    for (;;) {
      zmq::message_t event;
      zmq::message_t endpoint;
      if (!monitor.recv(event, zmq::recv_flags::dontwait)) return;
      if (event.more()) (void)monitor.recv(endpoint, zmq::recv_flags::none);
      // Event frame: 16-bit event number, 32-bit value (a file descriptor for these events).
      if (event.size() < 6) continue;
      std::uint16_t number = 0;
      std::int32_t fd = 0;
      std::memcpy(&number, event.data(), sizeof number);
      std::memcpy(&fd, event.data<char>() + 2, sizeof fd);
      const std::string where = endpoint.to_string();
      if (number == ZMQ_EVENT_LISTENING) {
        listeners.listening(where, fd);
      } else if (number == ZMQ_EVENT_ACCEPTED) {
        if (counted(where)) listeners.accepted(where, fd);
      } else if (number == ZMQ_EVENT_DISCONNECTED) {
        listeners.closed(fd);
      }
    }
  }

  // Closes the newest connections beyond the cap, and while the topics held are beyond theirs.
  void enforce_limits() {
    while (listeners.open() > limits.max_connections) {
      if (!listeners.close_newest()) break;
      note_refusal("connections", "closed a subscriber's connection: more than " +
                                      std::to_string(limits.max_connections) + " subscribers at once");
    }
    // One connection at a time: closing it takes the topics only it held away, which shows some looks later.
    const auto now = Clock::now();
    if (topics.size() > limits.max_topics && listeners.closing() == 0 && now >= next_topic_close &&
        listeners.close_newest()) {
      next_topic_close = now + kTopicsSettle;
      note_refusal("topics", "closed a subscriber's connection: subscribers hold more than " +
                                 std::to_string(limits.max_topics) + " topics");
    }
    connections.store(listeners.open(), std::memory_order_relaxed);
  }

  void watch() {
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(state_mutex);
        if (stopping) return;
      }
      try {
        std::uint64_t dropped = 0;
        {
          std::lock_guard<std::mutex> lock(socket_mutex);
          dropped = read_peers();
        }
        if (dropped > 0) {
          refused.fetch_add(dropped - 1, std::memory_order_relaxed);  // note_refusal counts the last one
          note_refusal("message", "dropped " + std::to_string(dropped) +
                                      " message(s) from subscribers that are not subscriptions");
        }
        read_connections();
        enforce_limits();
        zmq::pollitem_t item{monitor.handle(), 0, ZMQ_POLLIN, 0};
        zmq::poll(&item, 1, kPeersReadEvery);
      } catch (const zmq::error_t& e) {
        if (e.num() == ETERM) return;
        if (e.num() != EINTR) std::clog << "coupler publisher: watching peers: " << e.what() << '\n';
      } catch (const std::exception& e) {
        std::clog << "coupler publisher: watching peers: " << e.what() << '\n';
      }
    }
  }

  void check_open() const {
    if (closed) throw Error("the frame publisher is closed");
  }
};

FramePublisher::FramePublisher(std::vector<std::string> scene, std::chrono::milliseconds linger,
                               PublisherLimits limits)
    : impl_(std::make_unique<Impl>()) {
  if (scene.empty()) throw Error("the scene message needs its metadata part");
  if (limits.max_connections < 1 || limits.max_topics < 1) {
    throw Error("a publisher's connection and topic limits must be at least 1");
  }
  Impl& p = *impl_;
  p.limits = std::move(limits);
  zmq::socket_t& s = p.socket;
  s.set(zmq::sockopt::xpub_verbose, 1);  // every subscription, counted for wait_for_subscribers
  const std::string welcome = scene_frame(scene);
  // The scene goes to each new connection alone, first, before any frame.
  detail::checked("setting the scene", [&] {
    s.set(zmq::sockopt::xpub_welcome_msg, welcome);
    return 0;
  });
  s.set(zmq::sockopt::linger, static_cast<int>(linger.count()));
  s.set(zmq::sockopt::affinity, detail::kPublishingIoThread);
  s.set(zmq::sockopt::maxmsgsize, PublisherLimits::kMaxSubscriptionBytes);
  p.start_monitor();
  p.watcher = std::thread([&p] { p.watch(); });
}

FramePublisher::~FramePublisher() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; the socket closes regardless
  }
}

std::string FramePublisher::bind(const PublisherBinding& binding) {
  Impl& p = *impl_;
  std::lock_guard<std::mutex> lock(p.socket_mutex);
  p.check_open();
  zmq::socket_t& s = p.socket;
  if (binding.hwm < 1) throw Error("a publisher's queue limit (hwm) must be at least 1");
  if (binding.handshake_timeout.count() < 0) throw Error("handshake timeout must not be negative");
  if (detail::is_abstract_ipc(binding.address) && !binding.curve_key_pair) {
    throw Error(detail::abstract_ipc_refusal(binding.address));
  }
  // Options apply to the endpoints bound after them: each binding gets its own queue limit and security.
  s.set(zmq::sockopt::sndhwm, binding.hwm);
  s.set(zmq::sockopt::ipv6, detail::names_ipv6_host(binding.address) ? 1 : 0);
  s.set(zmq::sockopt::handshake_ivl, static_cast<int>(binding.handshake_timeout.count()));
  detail::set_liveness(s, binding.heartbeat_interval, binding.heartbeat_timeout,
                       PublisherLimits::kMaxSubscriptionBytes);
  if (binding.curve_key_pair) {
    auto log = binding.on_refused_client;
    if (!log) log = [](const std::string& refusal) { std::clog << "coupler publisher: " + refusal + "\n"; };
    p.zap.push_back(std::make_unique<detail::ZapRegistration>(binding.curve_allowed_clients, std::move(log)));
    detail::checked("setting the publisher's CURVE keys", [&] {
      s.set(zmq::sockopt::curve_server, 1);
      s.set(zmq::sockopt::curve_secretkey, binding.curve_key_pair->secret_key);
      s.set(zmq::sockopt::zap_domain, p.zap.back()->domain());
      return 0;
    });
  } else {
    if (!binding.curve_allowed_clients.empty()) throw Error("a CURVE allow-list needs the publisher's own key pair");
    s.set(zmq::sockopt::curve_server, 0);  // back to no security, for an address bound after a CURVE one
    if (!p.zap.empty()) s.set(zmq::sockopt::zap_domain, std::string());
  }
  const std::string shown = binding.address.substr(0, 200);
  if (const auto path = detail::ipc_path(binding.address)) detail::refuse_if_served(*path);
  detail::checked("cannot publish on " + shown, [&] { s.bind(detail::bind_address(binding.address)); return 0; });
  std::string endpoint = s.get(zmq::sockopt::last_endpoint);
  if (const auto bound = detail::ipc_path(endpoint)) {
    p.socket_files.emplace_back(*bound, detail::file_identity(*bound));
    detail::restrict_to_owner(*bound);
  }
  if (!binding.counted) {
    std::lock_guard<std::mutex> state(p.state_mutex);
    p.uncounted_endpoints.insert(endpoint);
  }
  return endpoint;
}

bool FramePublisher::wait_for_subscribers(std::uint64_t count, std::chrono::milliseconds timeout) {
  Impl& p = *impl_;
  p.check_open();
  std::unique_lock<std::mutex> lock(p.state_mutex);
  return p.changed.wait_for(lock, timeout, [&] { return subscriptions() >= count; });
}

void FramePublisher::publish(std::string_view topic, std::string_view payload, std::int64_t wall_ns,
                             std::int64_t simulated_ns) {
  Impl& p = *impl_;
  zmq::message_t message(topic.size() + 1 + kHeaderBytes + payload.size());
  char* at = message.data<char>();
  std::memcpy(at, topic.data(), topic.size());
  at += topic.size();
  *at++ = '\0';
  std::lock_guard<std::mutex> lock(p.socket_mutex);
  p.check_open();
  put(at, p.sequence.load(std::memory_order_relaxed));
  put(at + 8, p.next_in(topic));
  put(at + 16, static_cast<std::uint64_t>(wall_ns));
  put(at + 24, static_cast<std::uint64_t>(simulated_ns));
  if (!payload.empty()) std::memcpy(at + kHeaderBytes, payload.data(), payload.size());
  p.sequence.fetch_add(1, std::memory_order_relaxed);
  // An XPUB never waits: a subscriber whose queue is full loses the message, the others get it.
  (void)p.socket.send(message, zmq::send_flags::dontwait);
}

void FramePublisher::send_end() {
  Impl& p = *impl_;
  std::lock_guard<std::mutex> lock(p.socket_mutex);
  p.check_open();
  std::string message(kEndTopic);
  message.push_back('\0');
  message.resize(message.size() + 8);
  put(&message[message.size() - 8], sent());
  (void)p.socket.send(zmq::buffer(message), zmq::send_flags::dontwait);
}

void FramePublisher::close() {
  Impl& p = *impl_;
  if (p.closed) return;
  send_end();
  {
    std::lock_guard<std::mutex> lock(p.state_mutex);
    p.stopping = true;
  }
  p.changed.notify_all();
  if (p.watcher.joinable()) p.watcher.join();
  std::lock_guard<std::mutex> lock(p.socket_mutex);
  p.closed = true;
  zmq_socket_monitor(p.socket.handle(), nullptr, 0);
  p.monitor.close();
  p.socket.close();  // queued messages leave within the linger time, in ZeroMQ's I/O thread
  // ZeroMQ may leave a socket file behind; only the one this publisher bound is removed.
  for (const auto& [path, identity] : p.socket_files) {
    if (identity && detail::file_identity(path) == identity) ::unlink(path.c_str());
  }
  p.zap.clear();
}

bool FramePublisher::closed() const noexcept { return impl_->closed; }

std::uint64_t FramePublisher::sent() const noexcept { return impl_->sequence.load(std::memory_order_relaxed); }

std::uint64_t FramePublisher::subscriptions() const noexcept {
  return impl_->subscriptions.load(std::memory_order_relaxed);
}

std::uint64_t FramePublisher::refused() const noexcept { return impl_->refused.load(std::memory_order_relaxed); }

std::size_t FramePublisher::connections() const noexcept {
  return impl_->connections.load(std::memory_order_relaxed);
}

std::int64_t header_nanoseconds(double seconds) {
  const double ns = std::nearbyint(seconds * 1e9);
  return ns > 0.0 ? static_cast<std::int64_t>(ns) : 0;
}

std::int64_t wall_clock_nanoseconds() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace coupler
