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

}  // namespace coupler::detail
