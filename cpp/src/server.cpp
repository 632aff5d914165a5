#include <coupler/server.hpp>

#include <filesystem>
#include <iostream>
#include <string_view>

#include <coupler/codec.hpp>

#include "zmq_socket.hpp"

namespace coupler {

struct Server::Impl {
  ~Impl() {
    // ZeroMQ leaves the socket file of an ipc:// endpoint behind; a server
    // owns its endpoint, so it cleans up after itself.
    constexpr std::string_view ipc = "ipc://";
    if (endpoint.compare(0, ipc.size(), ipc) == 0) {
      socket.close();
      std::error_code ignored;
      std::filesystem::remove(endpoint.substr(ipc.size()), ignored);
    }
  }

  ServerOptions options;
  zmq::socket_t socket{detail::shared_context(), zmq::socket_type::router};
  std::string endpoint;
  std::uint64_t bad_frames = 0;

  void report(const std::string& problem) {
    ++bad_frames;
    log(problem);
  }

  void log(const std::string& problem) {
    if (options.on_bad_frame) {
      options.on_bad_frame(problem);
    } else {
      std::clog << "coupler server: " << problem << '\n';
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

  // Reads one multipart message that is known to be waiting. Returns it when
  // it is a valid request; answers or drops it otherwise.
  std::optional<Request> read_one() {
    std::vector<zmq::message_t> parts;
    do {
      parts.emplace_back();
      detail::checked("receiving", [&] { return socket.recv(parts.back(), zmq::recv_flags::none); });
    } while (parts.back().more());

    // The envelope is every frame up to and including the empty delimiter a
    // REQ peer puts before its payload (with REQ_CORRELATE, a request id
    // comes first). A peer that sends no delimiter is not speaking the
    // protocol's REQ/REP framing.
    std::vector<std::string> envelope;
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
    const zmq::message_t& payload = parts[body];
    try {
      std::string frame = payload.to_string();
      Message message = decode(frame);
      return Request(std::move(envelope), std::move(message), std::move(frame));
    } catch (const ProtocolError& e) {
      const std::string problem = "malformed frame: " + e.text();
      report(problem);
      send(envelope, encode(ErrorMessage{static_cast<int>(e.code()), problem}));
      return std::nullopt;
    }
  }
};

Server::Server(const std::string& address, ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  zmq::socket_t& s = impl_->socket;
  s.set(zmq::sockopt::linger, 0);
  s.set(zmq::sockopt::router_mandatory, 1);
  detail::checked("binding " + address, [&] { s.bind(address); return 0; });
  impl_->endpoint = s.get(zmq::sockopt::last_endpoint);
}

Server::~Server() = default;
Server::Server(Server&&) noexcept = default;
Server& Server::operator=(Server&&) noexcept = default;

Request Server::receive(std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());  // rounded up, never early
    if (!detail::wait_readable(impl_->socket, std::max(left, std::chrono::milliseconds(0)))) {
      throw TimeoutError("no request on " + impl_->endpoint + " within " + std::to_string(timeout.count()) + " ms");
    }
    if (auto request = impl_->read_one()) return std::move(*request);
  }
}

std::optional<Request> Server::try_receive() {
  while (detail::wait_readable(impl_->socket, std::chrono::milliseconds(0))) {
    if (auto request = impl_->read_one()) return request;
  }
  return std::nullopt;
}

void Server::reply(const Request& request, const Message& message) { impl_->send(request.envelope_, encode(message)); }

void Server::reply_frame(const Request& request, const std::string& frame) { impl_->send(request.envelope_, frame); }

std::string Server::endpoint() const { return impl_->endpoint; }
std::uint64_t Server::bad_frames() const noexcept { return impl_->bad_frames; }

}  // namespace coupler
