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
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    try {
      return zmq::poll(&item, 1, std::max(left, std::chrono::milliseconds(0))) > 0;
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) throw Error(std::string("waiting for a message: ") + e.what());
      if (Clock::now() >= deadline) return false;
    }
  }
}

}  // namespace coupler::detail
