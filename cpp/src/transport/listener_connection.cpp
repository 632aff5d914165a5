#include "transport/listener_connection.hpp"

#include <algorithm>
#include <cstring>

#include <netinet/in.h>
#include <sys/un.h>

namespace coupler::detail {
namespace {

// The port of an IP address; 0 for other families.
int port_of(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(address).sin_port);
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(address).sin6_port);
  return 0;
}

}  // namespace

void ListenerConnections::listening(const std::string& endpoint, int fd) {
  Address address;
  address.length = sizeof address.storage;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address.storage), &address.length) == 0) {
    listeners_[endpoint] = address;
  }
}

void ListenerConnections::accepted(const std::string& endpoint, int fd) { open_.push_back({fd, endpoint}); }

void ListenerConnections::closed(int fd) {
  const auto open = std::find_if(open_.rbegin(), open_.rend(), [fd](const Connection& c) { return c.fd == fd; });
  if (open != open_.rend()) {
    open_.erase(std::next(open).base());
    return;
  }
  const auto closing = std::find(closing_.begin(), closing_.end(), fd);
  if (closing != closing_.end()) closing_.erase(closing);
}

bool ListenerConnections::still_accepted_from(const Connection& connection) const {
  const auto listener = listeners_.find(connection.endpoint);
  if (listener == listeners_.end()) return false;
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (::getsockname(connection.fd, reinterpret_cast<sockaddr*>(&local), &length) != 0) return false;
  sockaddr_storage peer{};
  socklen_t peer_length = sizeof peer;
  if (::getpeername(connection.fd, reinterpret_cast<sockaddr*>(&peer), &peer_length) != 0) return false;
  const sockaddr_storage& bound = listener->second.storage;
  if (local.ss_family != bound.ss_family) return false;
  if (local.ss_family == AF_UNIX) {
    // An accepted Unix socket reports its listener's path.
    return length == listener->second.length && std::memcmp(&local, &bound, length) == 0;
  }
  // An accepted IP socket reports the interface's own address where its listener has "any": the port tells.
  return port_of(local) == port_of(bound) && port_of(local) != 0;
}

bool ListenerConnections::close_newest() {
  if (open_.empty()) return false;
  const Connection newest = open_.back();
  open_.pop_back();
  if (still_accepted_from(newest)) {
    ::shutdown(newest.fd, SHUT_RDWR);
    closing_.push_back(newest.fd);
  }
  return true;
}

}  // namespace coupler::detail
