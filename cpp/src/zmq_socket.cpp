#include "zmq_socket.hpp"

namespace coupler::detail {

zmq::context_t& shared_context() {
  static zmq::context_t context;
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
