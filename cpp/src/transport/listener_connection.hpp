#pragma once
// The connections a socket accepted on its listeners, as its monitor reports
// them, and closing the newest of them: how a publisher caps its subscribers,
// which ZeroMQ has no option for.

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include <sys/socket.h>

namespace coupler::detail {

class ListenerConnections {
 public:
  // A listener bound at `endpoint` on file descriptor `fd` (ZMQ_EVENT_LISTENING).
  void listening(const std::string& endpoint, int fd);
  // A connection accepted there (ZMQ_EVENT_ACCEPTED).
  void accepted(const std::string& endpoint, int fd);
  // A connection closed (ZMQ_EVENT_DISCONNECTED); unknown descriptors are ignored.
  void closed(int fd);

  // Connections open and not being closed.
  std::size_t open() const noexcept { return open_.size(); }
  // Connections shut down whose close is not reported yet.
  std::size_t closing() const noexcept { return closing_.size(); }

  // Shuts the newest open connection down (ZeroMQ then closes it as it would
  // a peer that left: the descriptor stays ZeroMQ's until then, so it is
  // never another's). A descriptor that no longer is a connection of its
  // listener (closed since, its number taken again) is only forgotten.
  // False when none is open.
  bool close_newest();

 private:
  struct Address {
    sockaddr_storage storage{};
    socklen_t length = 0;
  };
  struct Connection {
    int fd;
    std::string endpoint;
  };
  bool still_accepted_from(const Connection& connection) const;

  std::unordered_map<std::string, Address> listeners_;
  std::vector<Connection> open_;       // oldest first
  std::vector<int> closing_;          // shut down, their close not reported yet
};

}  // namespace coupler::detail
