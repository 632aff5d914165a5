#include "transport/ipc_endpoint.hpp"

#include <cerrno>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <coupler/wire/error.hpp>

namespace coupler::detail {

std::optional<std::string> ipc_path(const std::string& address) {
  constexpr std::string_view scheme = "ipc://";
  if (address.compare(0, scheme.size(), scheme) != 0) return std::nullopt;
  std::string path = address.substr(scheme.size());
  if (path.empty() || path[0] == '@' || path == "*") return std::nullopt;
  return path;
}

void refuse_if_served(const std::string& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return;
  if (!S_ISSOCK(info.st_mode)) {
    throw Error("binding ipc://" + path.substr(0, 200) +
                ": the path exists and is not a socket; refusing to replace it (choose another path)");
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof address.sun_path) return;  // ZeroMQ's bind reports the over-long path itself
  std::memcpy(address.sun_path, path.c_str(), path.size());
  const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (probe < 0) throw Error("probing ipc://" + path + ": " + std::strerror(errno));
  const int result = ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int error = errno;
  ::close(probe);
  // EAGAIN: a listener whose backlog is full, which is still a running server.
  if (result == 0 || error == EAGAIN || error == EINPROGRESS) {
    throw Error("binding ipc://" + path + ": address in use by a running server");
  }
}

bool is_abstract_ipc(const std::string& address) {
  constexpr std::string_view scheme = "ipc://@";
  return address.compare(0, scheme.size(), scheme) == 0;
}

std::string abstract_ipc_refusal(const std::string& address) {
  return "refusing to bind " + address.substr(0, 200) +
         ": an abstract socket has no file permissions, so any local user could connect; use ipc://PATH, "
         "or turn CURVE on (--curve-secret with --curve-allow)";
}

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return FileIdentity{info.st_dev, info.st_ino};
}

void restrict_to_owner(const std::string& path) {
  if (::chmod(path.c_str(), S_IRUSR | S_IWUSR) != 0) {
    throw Error("restricting ipc://" + path + " to its owner: " + std::strerror(errno));
  }
}

}  // namespace coupler::detail
