#include <coupler/transport/client.hpp>

#include <algorithm>
#include <cerrno>
#include <climits>

#include <coupler/wire/codec.hpp>

#include "transport/zmq_socket.hpp"

namespace coupler {

namespace {

// Runs a ZeroMQ call, rethrowing its failure as coupler::Error naming what was
// done and to whom. Unlike detail::checked, the text is composed only on
// failure: a round trip allocates nothing for it.
template <class F>
auto on_socket(const char* doing, const std::string& address, F&& call) {
  try {
    return call();
  } catch (const zmq::error_t& e) {
    throw Error(std::string(doing) + address + ": " + e.what());
  }
}

}  // namespace

struct Client::Impl {
  std::string address;
  ClientOptions options;
  zmq::socket_t socket;

  void open() {
    zmq::socket_t s(detail::shared_context(), zmq::socket_type::req);
    s.set(zmq::sockopt::linger, static_cast<int>(options.linger.count()));
    // Every client of a process on one I/O thread, which handles their commands in order: a controller's
    // goodbye is written before the next client of the process connects. ZeroMQ orders nothing across
    // connections, but a server then seldom reads the newcomer's HandshakeInit before the goodbye and refuses it
    // as busy (on two threads it did, under load).
    s.set(zmq::sockopt::affinity, detail::kServingIoThread);
    // A timed-out request must not wedge the socket: allow a new request at
    // any time and drop answers that belong to an abandoned one.
    s.set(zmq::sockopt::req_relaxed, 1);
    s.set(zmq::sockopt::req_correlate, 1);
    s.set(zmq::sockopt::sndtimeo, static_cast<int>(options.timeout.count()));
    detail::set_liveness(s, options.heartbeat_interval, options.heartbeat_timeout, options.max_frame_bytes);
    if (options.curve_key_pair || !options.curve_server_key.empty()) {
      if (!options.curve_key_pair || options.curve_server_key.empty()) {
        throw Error("CURVE needs both the server's public key and this client's key pair");
      }
      detail::checked("setting the CURVE keys", [&] {
        s.set(zmq::sockopt::curve_serverkey, options.curve_server_key);
        s.set(zmq::sockopt::curve_publickey, options.curve_key_pair->public_key);
        s.set(zmq::sockopt::curve_secretkey, options.curve_key_pair->secret_key);
        return 0;
      });
    }
    if (detail::names_ipv6_host(address)) s.set(zmq::sockopt::ipv6, 1);
    detail::checked("connecting to " + address, [&] { s.connect(address); return 0; });
    socket = std::move(s);
    receive_timeout_ms = -1;  // a fresh socket has ZeroMQ's default: none
  }

  // The receive timeout last set on the socket, so a wait of the same length
  // does not set it again.
  int receive_timeout_ms = -1;

  // The socket, when the client has not been closed.
  zmq::socket_t& live() {
    if (!socket) throw Error("the client of " + address + " is closed: open a new one");
    return socket;
  }

  // Reads one whole answer if there is one; the REQ socket has already
  // removed the envelope. Never blocks: poll also wakes for a late answer to
  // an abandoned request, which the socket then drops, leaving nothing.
  std::optional<std::string> read_answer() {
    zmq::message_t frame;
    zmq::socket_t& s = live();
    const auto received =
        on_socket("receiving from ", address, [&] { return s.recv(frame, zmq::recv_flags::dontwait); });
    if (!received) return std::nullopt;
    return only_frame(frame);
  }

  // Waits up to `timeout` for one whole answer in a single blocking receive:
  // a poll and then a receive cost two wake-ups' worth of system calls per
  // round trip, the receive alone one. libzmq bounds the call by RCVTIMEO and,
  // with REQ_CORRELATE, drops a late answer to an abandoned request inside it
  // and waits on. nullopt when the time passed or a signal interrupted it.
  std::optional<std::string> await_answer(std::chrono::milliseconds timeout) {
    const int ms = static_cast<int>(std::min<std::chrono::milliseconds::rep>(timeout.count(), INT_MAX));
    live();
    if (ms != receive_timeout_ms) {
      on_socket("setting the receive timeout for ", address, [&] { socket.set(zmq::sockopt::rcvtimeo, ms); return 0; });
      receive_timeout_ms = ms;
    }
    zmq::message_t frame;
    try {
      if (!socket.recv(frame, zmq::recv_flags::none)) return std::nullopt;
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) return std::nullopt;
      throw Error("receiving from " + address + ": " + e.what());
    }
    return only_frame(frame);
  }

  // The answer's one frame; reads and rejects the rest of a multi-frame answer,
  // so the next answer starts clean.
  std::string only_frame(zmq::message_t& frame) {
    int extra_frames = 0;
    while (frame.more()) {
      zmq::message_t rest;
      on_socket("receiving from ", address, [&] { return socket.recv(rest, zmq::recv_flags::none); });
      ++extra_frames;
      if (!rest.more()) break;
    }
    if (extra_frames > 0) {
      throw ProtocolError("answer from " + address + " has " + std::to_string(extra_frames + 1) +
                          " frames; the protocol sends one");
    }
    return frame.to_string();
  }
};

Client::Client(const std::string& address, ClientOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->address = address;
  impl_->options = std::move(options);
  impl_->open();
}

Client::~Client() = default;
Client::Client(Client&&) noexcept = default;
Client& Client::operator=(Client&&) noexcept = default;

void Client::send(const Message& message) { send_frame(encode(message)); }

void Client::send_frame(const std::string& frame) {
  zmq::socket_t& socket = impl_->live();
  auto sent = on_socket("sending to ", impl_->address,
                        [&] { return socket.send(zmq::buffer(frame), zmq::send_flags::none); });
  if (!sent) {
    throw TimeoutError("could not send to " + impl_->address + " within " +
                       std::to_string(impl_->options.timeout.count()) + " ms");
  }
}

Message Client::receive() { return receive(impl_->options.timeout); }

Message Client::receive(std::chrono::milliseconds timeout) { return decode(receive_frame(timeout)); }

std::string Client::receive_frame(std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  auto left = std::max(timeout, std::chrono::milliseconds(0));
  for (;;) {
    if (auto answer = impl_->await_answer(left)) return std::move(*answer);
    // Interrupted by a signal, or libzmq's coarse clock gave up a little
    // early: a receive never ends before its deadline.
    left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());  // rounded up, never early
    if (left.count() <= 0) {
      throw TimeoutError("no answer from " + impl_->address + " within " + std::to_string(timeout.count()) + " ms");
    }
  }
}

std::optional<Message> Client::try_receive() {
  if (auto frame = impl_->read_answer()) return decode(*frame);
  return std::nullopt;
}

std::optional<std::string> Client::try_receive_frame() { return impl_->read_answer(); }

bool Client::wait(std::chrono::milliseconds timeout) { return detail::wait_readable(impl_->live(), timeout); }

Message Client::request(const Message& message) {
  send(message);
  return receive();
}

void Client::reconnect() {
  // Nothing queued on the old socket may reach a restarted server later: a
  // Control the caller gave up on must not be applied behind its back.
  if (impl_->socket) {
    impl_->socket.set(zmq::sockopt::linger, 0);
    impl_->socket.close();
  }
  impl_->open();
}

void Client::close() { impl_->socket.close(); }

std::string Client::mechanism() const {
  switch (impl_->live().get(zmq::sockopt::mechanism)) {
    case ZMQ_CURVE:
      return "CURVE";
    case ZMQ_NULL:
      return "NULL";
    default:
      return "other";
  }
}

const std::string& Client::address() const noexcept { return impl_->address; }
const ClientOptions& Client::options() const noexcept { return impl_->options; }

void Client::set_timeout(std::chrono::milliseconds timeout) {
  if (impl_->socket) {
    on_socket("setting the send timeout for ", impl_->address,
              [&] { impl_->socket.set(zmq::sockopt::sndtimeo, static_cast<int>(timeout.count())); return 0; });
  }
  impl_->options.timeout = timeout;
}

}  // namespace coupler
