#include <coupler/transport/frame_publisher.hpp>

#include <atomic>
#include <cmath>
#include <cstring>
#include <iostream>
#include <utility>

#include <zmq.hpp>

#include <coupler/wire/error.hpp>

#include "transport/zap_handler.hpp"
#include "transport/zmq_socket.hpp"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the header is written by copying integers, and is little-endian"
#endif

namespace coupler {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kSubscribe = 1;  // the first byte of a subscription as XPUB passes it on (0: an unsubscription)

void put(char* at, std::uint64_t value) { std::memcpy(at, &value, sizeof value); }

}  // namespace

struct FramePublisher::Impl {
  std::vector<std::string> scene;
  // In the process's shared context: the ZAP handler of CURVE bindings serves that context only.
  zmq::socket_t socket{detail::shared_context(), zmq::socket_type::xpub};
  std::vector<std::unique_ptr<detail::ZapRegistration>> zap;
  std::atomic<std::uint64_t> sequence{0};
  std::atomic<std::uint64_t> subscriptions{0};
  // Few topics (one per message kind and direction): a linear search beats hashing each topic.
  std::vector<std::pair<std::string, std::uint64_t>> topic_sequences;
  Clock::time_point next_look{};
  bool closed = false;

  std::uint64_t next_in(std::string_view topic) {
    for (auto& [name, count] : topic_sequences) {
      if (name == topic) return count++;
    }
    topic_sequences.emplace_back(std::string(topic), 1);
    return 0;
  }

  // Reads the subscriptions that arrived; sends the scene once for those that are new.
  void welcome() {
    bool fresh = false;
    for (;;) {
      zmq::message_t subscription;
      if (!socket.recv(subscription, zmq::recv_flags::dontwait)) break;
      if (subscription.size() > 0 && *subscription.data<char>() == kSubscribe) {
        subscriptions.fetch_add(1, std::memory_order_relaxed);
        fresh = true;
      }
    }
    if (!fresh) return;
    socket.send(zmq::buffer(kSceneTopic), zmq::send_flags::sndmore | zmq::send_flags::dontwait);
    for (std::size_t i = 0; i < scene.size(); ++i) {
      const auto more = i + 1 < scene.size() ? zmq::send_flags::sndmore : zmq::send_flags::none;
      socket.send(zmq::buffer(scene[i]), more | zmq::send_flags::dontwait);
    }
  }

  void check_open() const {
    if (closed) throw Error("the frame publisher is closed");
  }
};

FramePublisher::FramePublisher(std::vector<std::string> scene, std::chrono::milliseconds linger)
    : impl_(std::make_unique<Impl>()) {
  impl_->scene = std::move(scene);
  if (impl_->scene.empty()) throw Error("the scene message needs its metadata part");
  impl_->socket.set(zmq::sockopt::xpub_verbose, 1);  // every subscriber's subscription, so each gets the scene
  impl_->socket.set(zmq::sockopt::linger, static_cast<int>(linger.count()));
  impl_->socket.set(zmq::sockopt::affinity, detail::kPublishingIoThread);
}

FramePublisher::~FramePublisher() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; the socket closes regardless
  }
}

std::string FramePublisher::bind(const PublisherBinding& binding) {
  impl_->check_open();
  zmq::socket_t& s = impl_->socket;
  if (binding.hwm < 1) throw Error("a publisher's queue limit (hwm) must be at least 1");
  // Options apply to the endpoints bound after them: each binding gets its own queue limit and security.
  s.set(zmq::sockopt::sndhwm, binding.hwm);
  s.set(zmq::sockopt::ipv6, detail::names_ipv6_host(binding.address) ? 1 : 0);
  if (binding.curve_key_pair) {
    auto log = binding.on_refused_client;
    if (!log) log = [](const std::string& refusal) { std::clog << "coupler publisher: " + refusal + "\n"; };
    impl_->zap.push_back(std::make_unique<detail::ZapRegistration>(binding.curve_allowed_clients, std::move(log)));
    detail::checked("setting the publisher's CURVE keys", [&] {
      s.set(zmq::sockopt::curve_server, 1);
      s.set(zmq::sockopt::curve_secretkey, binding.curve_key_pair->secret_key);
      s.set(zmq::sockopt::zap_domain, impl_->zap.back()->domain());
      return 0;
    });
  } else {
    if (!binding.curve_allowed_clients.empty()) throw Error("a CURVE allow-list needs the publisher's own key pair");
    s.set(zmq::sockopt::curve_server, 0);  // back to no security, for an address bound after a CURVE one
    if (!impl_->zap.empty()) s.set(zmq::sockopt::zap_domain, std::string());
  }
  const std::string shown = binding.address.substr(0, 200);
  detail::checked("cannot publish on " + shown, [&] { s.bind(detail::bind_address(binding.address)); return 0; });
  return s.get(zmq::sockopt::last_endpoint);
}

bool FramePublisher::wait_for_subscribers(std::uint64_t count, std::chrono::milliseconds timeout) {
  impl_->check_open();
  const auto deadline = Clock::now() + timeout;
  while (subscriptions() < count) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !detail::wait_readable(impl_->socket, left)) return subscriptions() >= count;
    impl_->welcome();
  }
  return true;
}

void FramePublisher::publish(std::string_view topic, std::string_view payload, std::int64_t wall_ns,
                             std::int64_t simulated_ns) {
  Impl& p = *impl_;
  p.check_open();
  zmq::message_t message(topic.size() + 1 + kHeaderBytes + payload.size());
  char* at = message.data<char>();
  std::memcpy(at, topic.data(), topic.size());
  at += topic.size();
  *at++ = '\0';
  put(at, p.sequence.load(std::memory_order_relaxed));
  put(at + 8, p.next_in(topic));
  put(at + 16, static_cast<std::uint64_t>(wall_ns));
  put(at + 24, static_cast<std::uint64_t>(simulated_ns));
  if (!payload.empty()) std::memcpy(at + kHeaderBytes, payload.data(), payload.size());
  p.sequence.fetch_add(1, std::memory_order_relaxed);
  // An XPUB never waits: a subscriber whose queue is full loses the message, the others get it.
  (void)p.socket.send(message, zmq::send_flags::dontwait);
  const auto now = Clock::now();
  if (now >= p.next_look) {
    p.next_look = now + kSubscriptionsEvery;
    p.welcome();
  }
}

void FramePublisher::send_end() {
  impl_->check_open();
  std::string message(kEndTopic);
  message.push_back('\0');
  message.resize(message.size() + 8);
  put(&message[message.size() - 8], sent());
  (void)impl_->socket.send(zmq::buffer(message), zmq::send_flags::dontwait);
}

void FramePublisher::close() {
  if (impl_->closed) return;
  send_end();
  impl_->closed = true;
  impl_->socket.close();  // queued messages leave within the linger time, in ZeroMQ's I/O thread
  impl_->zap.clear();
}

bool FramePublisher::closed() const noexcept { return impl_->closed; }

std::uint64_t FramePublisher::sent() const noexcept { return impl_->sequence.load(std::memory_order_relaxed); }

std::uint64_t FramePublisher::subscriptions() const noexcept {
  return impl_->subscriptions.load(std::memory_order_relaxed);
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
