#include <coupler/transport/server.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <unordered_map>

#include <coupler/transport/rate_limited_log.hpp>
#include <coupler/wire/codec.hpp>

#include "transport/ipc_endpoint.hpp"
#include "wire/message_kind_scan.hpp"
#include "transport/zap_handler.hpp"
#include "transport/zmq_socket.hpp"

namespace coupler {

struct Server::Impl {
  ~Impl() {
    // Stopped explicitly, before either socket closes: ZeroMQ leaves the
    // monitor's sockets behind otherwise.
    zmq_socket_monitor(socket.handle(), nullptr, 0);
    monitor.close();
    // ZeroMQ leaves the socket file of an ipc:// endpoint behind; a server
    // owns its endpoint, so it cleans up after itself, but only while the
    // file is still the one it bound.
    if (const auto path = detail::ipc_path(endpoint); path && socket_file) {
      socket.close();
      if (detail::file_identity(*path) == socket_file) {
        std::error_code ignored;
        std::filesystem::remove(*path, ignored);
      }
    }
  }

  // The socket file this server bound (ipc:// only).
  std::optional<detail::FileIdentity> socket_file;

  ServerOptions options;
  // Declared before the socket, so it outlives it: no handshake is left without its handler.
  std::unique_ptr<detail::ZapRegistration> zap;
  zmq::socket_t socket{detail::shared_context(), zmq::socket_type::router};
  std::string endpoint;
  std::uint64_t bad_frames = 0;
  // Without on_bad_frame, peers' bad frames go to std::clog: bounded, so that no peer can flood it.
  RateLimitedLog clog_lines;

  // Which connection each peer's requests come from, so that a closed
  // connection (a DISCONNECTED event of the socket's monitor, naming its
  // file descriptor) can be told as a peer.
  zmq::socket_t monitor{detail::shared_context(), zmq::socket_type::pair};
  std::unordered_map<int, std::string> peer_by_fd;
  std::vector<std::string> closed_peers;

  void start_monitor() {
    static std::atomic<int> serial{0};
    const std::string address = "inproc://coupler-server-monitor-" + std::to_string(serial++);
    if (zmq_socket_monitor(socket.handle(), address.c_str(),
                           ZMQ_EVENT_DISCONNECTED | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) != 0) {
      throw Error("watching the server socket's connections: " + std::string(zmq_strerror(zmq_errno())));
    }
    monitor.set(zmq::sockopt::linger, 0);
    detail::checked("watching the server socket's connections", [&] { monitor.connect(address); return 0; });
  }

  // Called for every valid request; costs a hash lookup unless the
  // connection is new to us.
  void record_peer(int fd, const std::string& peer) {
    if (fd < 0) return;  // inproc: no file descriptor, no disconnect events either
    const auto known = peer_by_fd.find(fd);
    if (known != peer_by_fd.end() && known->second == peer) return;
    // A new connection may have reused the number of one that closed: read
    // that close first, so it is reported for the old peer.
    drain_monitor();
    peer_by_fd[fd] = peer;
  }

  void drain_monitor() {
    for (;;) {
      zmq::message_t event;
      zmq::message_t endpoint_frame;
      try {
        if (!monitor.recv(event, zmq::recv_flags::dontwait)) return;
        if (event.more()) (void)monitor.recv(endpoint_frame, zmq::recv_flags::none);
      } catch (const zmq::error_t&) {
        return;
      }
      // Event frame: 16-bit event number, 32-bit value (here the file descriptor).
      if (event.size() < 6) continue;
      std::uint16_t number = 0;
      std::int32_t fd = 0;
      std::memcpy(&number, event.data(), sizeof number);
      std::memcpy(&fd, static_cast<const char*>(event.data()) + 2, sizeof fd);
      if (number == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL) {
        refused_handshake(endpoint_frame.to_string());
        continue;
      }
      if (number != ZMQ_EVENT_DISCONNECTED) continue;
      const auto known = peer_by_fd.find(fd);
      if (known == peer_by_fd.end()) continue;
      closed_peers.push_back(std::move(known->second));
      peer_by_fd.erase(known);
    }
  }

  // With CURVE, a client that speaks another mechanism (a plain client) is
  // refused in the ZMTP handshake and never reaches the ZAP handler, which
  // logs the other refusals; it is logged here, at most once a minute with
  // the count of those not logged, so a flood of them cannot flood the log.
  static constexpr std::chrono::seconds kRefusalLogInterval{60};
  std::chrono::steady_clock::time_point last_refusal_logged{};
  bool refusal_logged = false;
  std::uint64_t refusals_not_logged = 0;

  // `address`: the client's, as the monitor names it (tcp://host:port).
  void refused_handshake(const std::string& address) {
    if (!options.curve_key_pair) return;  // without CURVE a failed handshake is garbage, not a refusal
    const auto now = std::chrono::steady_clock::now();
    if (refusal_logged && now - last_refusal_logged < kRefusalLogInterval) {
      ++refusals_not_logged;
      return;
    }
    constexpr std::size_t kShownAddress = 100;
    std::string line = "refused a client that does not speak CURVE: " + address.substr(0, kShownAddress);
    if (refusals_not_logged > 0) {
      line += "; " + std::to_string(refusals_not_logged) + " more refused since the last report";
    }
    refusals_not_logged = 0;
    refusal_logged = true;
    last_refusal_logged = now;
    if (options.on_refused_client) {
      options.on_refused_client(line);
    } else {
      std::clog << "coupler server: " << line << '\n';
    }
  }

  void report(const std::string& problem) {
    ++bad_frames;
    log(problem);
  }

  void log(const std::string& problem) {
    if (options.on_bad_frame) {
      options.on_bad_frame(problem);
    } else {
      if (const auto left_out = clog_lines.admit("bad frame")) {
        if (*left_out > 0) std::clog << "coupler server: " << clog_lines.left_out_line(*left_out) << '\n';
        std::clog << "coupler server: " << problem << '\n';
      }
    }
  }

  void send(const std::vector<std::string>& envelope, const std::string& frame) {
    try {
      for (const std::string& part : envelope) {
        if (!socket.send(zmq::buffer(part), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
          log("answer dropped: peer is not reading");
          return;
        }
      }
      if (!socket.send(zmq::buffer(frame), zmq::send_flags::dontwait)) log("answer dropped: peer is not reading");
    } catch (const zmq::error_t& e) {
      // ROUTER_MANDATORY reports a peer that left before its answer.
      log(std::string("answer dropped: ") + e.what());
    }
  }

  // The receive timeout last set on the socket (ZMQ_RCVTIMEO), in ms.
  int receive_timeout = -1;

  // Waits up to `timeout` for the first frame of a message in ZeroMQ's own
  // blocking receive: one wait per request, where a zmq_poll before each
  // receive costs several more system calls per round trip. False when none
  // came (or a signal interrupted the wait).
  bool receive_first(zmq::message_t& first, std::chrono::milliseconds timeout) {
    const int ms = static_cast<int>(std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, INT_MAX));
    if (ms != receive_timeout) {
      socket.set(zmq::sockopt::rcvtimeo, ms);
      receive_timeout = ms;
    }
    try {
      return socket.recv(first, zmq::recv_flags::none).has_value();
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) return false;
      throw Error(std::string("receiving: ") + e.what());
    }
  }

  // Waits up to `timeout` for a valid request, offering each to `answerer`
  // when there is one. Bad frames are answered on the way and the wait goes on;
  // neither answered nor a request when the time runs out.
  Offered wait_for_request(std::chrono::milliseconds timeout, const Server::Answerer* answerer) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    Offered offered;
    for (;;) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());  // rounded up, never early
      zmq::message_t first;
      if (receive_first(first, std::max(left, std::chrono::milliseconds(0)))) {
        offered.request = read_one(std::move(first), answerer, offered.answered);
        if (offered.answered || offered.request) return offered;
      } else if (Clock::now() >= deadline) {
        // ZeroMQ's wait can end a millisecond before its timeout; a wait never ends before its deadline.
        return offered;
      }
    }
  }

  // Reads the rest of a multipart message whose first frame is `first`.
  // Returns it when it is a valid request; answers or drops it otherwise.
  // With an `answerer`, a valid envelope's payload is offered to it before
  // decoding; when it answers, `answered` is set and nothing is returned.
  std::optional<Request> read_one(zmq::message_t first, const Server::Answerer* answerer, bool& answered) {
    // A REQ_CORRELATE request has four frames (routing id, request id, delimiter, body): room for them
    // from the start, so a request's envelope is not reallocated as it grows.
    constexpr std::size_t kUsualFrames = 4;
    std::vector<zmq::message_t> parts;
    parts.reserve(kUsualFrames);
    parts.push_back(std::move(first));
    while (parts.back().more()) {
      parts.emplace_back();
      // The frames of a message arrive together: the rest is already there.
      detail::checked("receiving", [&] { return socket.recv(parts.back(), zmq::recv_flags::dontwait); });
    }

    // The envelope is every frame up to and including the empty delimiter a
    // REQ peer puts before its payload (with REQ_CORRELATE, a request id
    // comes first). A peer that sends no delimiter is not speaking the
    // protocol's REQ/REP framing.
    std::vector<std::string> envelope;
    envelope.reserve(kUsualFrames - 1);
    std::size_t body = 0;
    envelope.push_back(parts[0].to_string());
    for (std::size_t i = 1; i < parts.size(); ++i) {
      envelope.push_back(parts[i].to_string());
      if (parts[i].size() == 0) {
        body = i + 1;
        break;
      }
    }
    if (body == 0) {
      envelope.resize(1);
      const std::string problem = "malformed frame: no empty delimiter frame before the payload (send from a REQ socket)";
      report(problem);
      send(envelope, encode(ErrorMessage{static_cast<int>(ErrorCode::MalformedFrame), problem}));
      return std::nullopt;
    }

    const std::size_t payload_frames = parts.size() - body;
    if (payload_frames != 1) {
      const std::string problem = payload_frames == 0
                                      ? "malformed frame: message has no payload after its envelope"
                                      : "malformed frame: multi-frame message of " + std::to_string(payload_frames) +
                                            " frames; the protocol sends one";
      report(problem);
      send(envelope, encode(ErrorMessage{static_cast<int>(ErrorCode::MalformedFrame), problem}));
      return std::nullopt;
    }
    zmq::message_t& payload = parts[body];
    if (answerer != nullptr) {
      const std::string_view offered(static_cast<const char*>(payload.data()), payload.size());
      if (std::optional<std::string> answer = (*answerer)(envelope.front(), offered)) {
        record_peer(zmq_msg_get(payload.handle(), ZMQ_SRCFD), envelope.front());
        send(envelope, *answer);
        answered = true;
        return std::nullopt;
      }
    }
    std::string frame = payload.to_string();
    if (const auto kind = kind_decoded_on_demand(frame)) {
      record_peer(zmq_msg_get(payload.handle(), ZMQ_SRCFD), envelope.front());
      return Request(std::move(envelope), *kind, std::move(frame));
    }
    try {
      Message message = decode(frame);
      // Not message_t::get: it throws on -1, which is simply "no descriptor" (inproc).
      record_peer(zmq_msg_get(payload.handle(), ZMQ_SRCFD), envelope.front());
      return Request(std::move(envelope), std::move(message), std::move(frame));
    } catch (const ProtocolError& e) {
      refuse_malformed(envelope, e);
      return std::nullopt;
    }
  }

  // The kind of `frame` when it is one left undecoded until Server::complete.
  std::optional<MessageType> kind_decoded_on_demand(std::string_view frame) const {
    if (options.decode_on_demand.empty()) return std::nullopt;
    const auto kind = detail::scan_message_kind(frame);
    if (!kind) return std::nullopt;
    const auto& kinds = options.decode_on_demand;
    if (std::find(kinds.begin(), kinds.end(), *kind) == kinds.end()) return std::nullopt;
    return kind;
  }

  void refuse_malformed(const std::vector<std::string>& envelope, const ProtocolError& e) {
    const std::string problem = "malformed frame: " + e.text();
    report(problem);
    send(envelope, encode(ErrorMessage{static_cast<int>(e.code()), problem}));
  }
};

Server::Server(const std::string& address, ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  ServerOptions& o = impl_->options;
  zmq::socket_t& s = impl_->socket;
  s.set(zmq::sockopt::linger, 0);
  s.set(zmq::sockopt::router_mandatory, 1);
  s.set(zmq::sockopt::affinity, detail::kServingIoThread);
  detail::set_liveness(s, o.heartbeat_interval, o.heartbeat_timeout, o.max_frame_bytes);
  if (o.handshake_timeout.count() < 0) throw Error("handshake timeout must not be negative");
  s.set(zmq::sockopt::handshake_ivl, static_cast<int>(o.handshake_timeout.count()));
  if (detail::names_ipv6_host(address)) s.set(zmq::sockopt::ipv6, 1);
  if (o.curve_key_pair) {
    auto log = o.on_refused_client;
    if (!log) log = [](const std::string& refusal) { std::clog << "coupler server: " + refusal + "\n"; };
    impl_->zap = std::make_unique<detail::ZapRegistration>(o.curve_allowed_clients, std::move(log));
    detail::checked("setting the CURVE keys", [&] {
      s.set(zmq::sockopt::curve_server, 1);
      s.set(zmq::sockopt::curve_secretkey, o.curve_key_pair->secret_key);
      s.set(zmq::sockopt::zap_domain, impl_->zap->domain());
      return 0;
    });
  } else if (!o.curve_allowed_clients.empty()) {
    throw Error("a CURVE allow-list needs the server's own key pair");
  }
  if (detail::is_abstract_ipc(address) && !o.curve_key_pair) throw Error(detail::abstract_ipc_refusal(address));
  impl_->start_monitor();
  const std::optional<std::string> path = detail::ipc_path(address);
  if (path) detail::refuse_if_served(*path);
  detail::checked("binding " + address, [&] { s.bind(detail::bind_address(address)); return 0; });
  impl_->endpoint = s.get(zmq::sockopt::last_endpoint);
  if (const auto bound = detail::ipc_path(impl_->endpoint)) {
    impl_->socket_file = detail::file_identity(*bound);
    detail::restrict_to_owner(*bound);
  }
}

Server::~Server() = default;
Server::Server(Server&&) noexcept = default;
Server& Server::operator=(Server&&) noexcept = default;

Request Server::receive(std::chrono::milliseconds timeout) {
  if (std::optional<Request> request = try_receive(timeout)) return std::move(*request);
  throw TimeoutError("no request on " + impl_->endpoint + " within " + std::to_string(timeout.count()) + " ms");
}

Offered Server::receive_offering(std::chrono::milliseconds timeout, const Answerer& answer) {
  return impl_->wait_for_request(timeout, &answer);
}

std::optional<Request> Server::try_receive(std::chrono::milliseconds timeout) {
  return impl_->wait_for_request(timeout, nullptr).request;
}

bool Server::complete(Request& request) {
  if (request.decoded_) return true;
  try {
    request.message_ = decode(request.frame_);
  } catch (const ProtocolError& e) {
    impl_->refuse_malformed(request.envelope_, e);
    return false;
  }
  request.type_ = type_of(request.message_);
  request.decoded_ = true;
  return true;
}

namespace {

void check_through_socket(const Request& request) {
  if (request.through_channel()) throw Error("a request that came through the shared channel is answered there");
}

}  // namespace

void Server::reply(const Request& request, const Message& message) {
  check_through_socket(request);
  impl_->send(request.envelope_, encode(message));
}

void Server::reply_frame(const Request& request, const std::string& frame) {
  check_through_socket(request);
  impl_->send(request.envelope_, frame);
}

std::vector<std::string> Server::take_closed_peers() {
  impl_->drain_monitor();
  std::vector<std::string> closed;
  closed.swap(impl_->closed_peers);
  return closed;
}

std::string Server::endpoint() const { return impl_->endpoint; }
std::uint64_t Server::bad_frames() const noexcept { return impl_->bad_frames; }

}  // namespace coupler
