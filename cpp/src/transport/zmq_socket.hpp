#pragma once
// What Client and Server share of ZeroMQ: one context per process, waiting
// with a deadline, and turning ZeroMQ failures into coupler::Error.

#include <chrono>
#include <cstdint>
#include <string>

#include <zmq.hpp>

#include <coupler/wire/error.hpp>

namespace coupler::detail {

// One context for the process, so inproc:// endpoints connect across objects.
// It has two I/O threads: a Server's connections stay on the first
// (ZMQ_AFFINITY), a FramePublisher's on the second, so copying frames to ten
// subscribers never delays the next request of the controller.
zmq::context_t& shared_context();
constexpr std::uint64_t kServingIoThread = 1;     // ZMQ_AFFINITY bit of the first I/O thread
constexpr std::uint64_t kPublishingIoThread = 2;  // and of the second

// Polls the socket for input; true when a message can be read. Retries when
// a signal interrupts the wait, against the same deadline.
bool wait_readable(zmq::socket_t& socket, std::chrono::milliseconds timeout);

// Sets ZMTP heartbeats (interval 0: off) and the largest frame a socket
// reads (0: no limit). Before connect or bind: they apply to new connections.
void set_liveness(zmq::socket_t& socket, std::chrono::milliseconds heartbeat_interval,
                  std::chrono::milliseconds heartbeat_timeout, std::int64_t max_frame_bytes);

// Whether a tcp:// or ws:// address names an IPv6 host ([::1]): ZeroMQ
// resolves such a host only on a socket with ZMQ_IPV6 set.
bool names_ipv6_host(const std::string& address);

// The address to bind for `address`: a tcp:// or ws:// host `localhost`
// becomes 127.0.0.1, since ZeroMQ takes a bind host for an interface name
// and there is no interface called localhost.
std::string bind_address(const std::string& address);

// Runs a ZeroMQ call, rethrowing its failure as coupler::Error with context.
template <class F>
auto checked(const std::string& doing, F&& call) {
  try {
    return call();
  } catch (const zmq::error_t& e) {
    throw Error(doing + ": " + e.what());
  }
}

}  // namespace coupler::detail
