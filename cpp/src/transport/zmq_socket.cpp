#include "transport/zmq_socket.hpp"

#include <optional>
#include <string_view>

namespace coupler::detail {

zmq::context_t& shared_context() {
  static zmq::context_t context(2);  // I/O threads: serving, publishing
  return context;
}

bool wait_readable(zmq::socket_t& socket, std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());  // rounded up, never early
    try {
      if (zmq::poll(&item, 1, std::max(left, std::chrono::milliseconds(0))) > 0) return true;
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw Error(std::string("waiting for a message: ") + e.what());
    }
    // ZeroMQ's poll can wake a millisecond before its timeout; a wait
    // never ends before its deadline.
    if (Clock::now() >= deadline) return false;
  }
}

namespace {

// The text after "tcp://" or "ws://" (and their secure forms), or nullopt.
std::optional<std::string> host_port_part(const std::string& address) {
  for (const std::string_view scheme : {"tcp://", "ws://", "wss://"}) {
    if (address.compare(0, scheme.size(), scheme) == 0) return address.substr(scheme.size());
  }
  return std::nullopt;
}

}  // namespace

bool names_ipv6_host(const std::string& address) {
  const auto rest = host_port_part(address);
  if (!rest) return false;
  // tcp://source;destination: either side may be IPv6.
  return rest->find('[') != std::string::npos;
}

std::string bind_address(const std::string& address) {
  const auto rest = host_port_part(address);
  constexpr std::string_view localhost = "localhost:";
  if (!rest || rest->compare(0, localhost.size(), localhost) != 0) return address;
  const std::string scheme = address.substr(0, address.size() - rest->size());
  return scheme + "127.0.0.1:" + rest->substr(localhost.size());
}

void set_liveness(zmq::socket_t& socket, std::chrono::milliseconds heartbeat_interval,
                  std::chrono::milliseconds heartbeat_timeout, std::int64_t max_frame_bytes) {
  if (heartbeat_interval.count() < 0 || heartbeat_timeout.count() < 0 || max_frame_bytes < 0) {
    throw Error("heartbeat interval, heartbeat timeout and max frame bytes must not be negative");
  }
  checked("setting socket options", [&] {
    if (heartbeat_interval.count() > 0) {
      socket.set(zmq::sockopt::heartbeat_ivl, static_cast<int>(heartbeat_interval.count()));
      socket.set(zmq::sockopt::heartbeat_timeout, static_cast<int>(heartbeat_timeout.count()));
      // Asks the peer to drop the connection too when it hears nothing for that long.
      socket.set(zmq::sockopt::heartbeat_ttl, static_cast<int>(heartbeat_timeout.count()));
    }
    socket.set(zmq::sockopt::maxmsgsize, max_frame_bytes > 0 ? max_frame_bytes : std::int64_t{-1});
    return 0;
  });
}

}  // namespace coupler::detail
