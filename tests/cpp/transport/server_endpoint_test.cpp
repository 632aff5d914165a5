// Where a Server listens: one server per ipc:// socket file, a file only its
// owner may connect to, loopback spelled localhost or [::1], and connections
// that stall in their handshake dropped.

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include <coupler/transport/client.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

std::string path_of(const std::string& ipc_address) { return ipc_address.substr(std::string("ipc://").size()); }

// One request from a new client, answered: the server at `address` is reachable.
bool answers(Server& server, const std::string& address) {
  Client client(address, ClientOptions{1000ms, 0ms});
  client.send(SensorRequestMessage{});
  try {
    const Request request = server.receive(1000ms);
    server.reply(request, SensorMessage{});
    return std::holds_alternative<SensorMessage>(client.receive());
  } catch (const TimeoutError&) {
    return false;
  }
}

// Sets the process umask for one scope.
class Umask {
 public:
  explicit Umask(mode_t mask) : previous_(::umask(mask)) {}
  ~Umask() { ::umask(previous_); }

 private:
  mode_t previous_;
};

}  // namespace

TEST_CASE("a second server on a live ipc path is refused and leaves the first reachable") {
  const std::string address = fresh_address("ipc");
  Server first(address);
  CHECK_THROWS_WITH(Server(address), Catch::Contains("address in use by a running server"));
  CHECK(std::filesystem::exists(path_of(address)));
  CHECK(answers(first, address));
}

TEST_CASE("a stale ipc socket file that nobody listens on is replaced") {
  const std::string address = fresh_address("ipc");
  {
    // A socket file bound and never listened on is what a killed server leaves behind.
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un un{};
    un.sun_family = AF_UNIX;
    const std::string path = path_of(address);
    std::copy(path.begin(), path.end(), un.sun_path);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&un), sizeof un) == 0);
    ::close(fd);
  }
  Server server(address);
  CHECK(answers(server, address));
}

TEST_CASE("an ipc path that exists and is not a socket is refused and left as it was") {
  const std::string address = fresh_address("ipc");
  const std::string path = path_of(address);
  {
    std::ofstream notes(path);
    notes << "keep me";
  }
  CHECK_THROWS_WITH(Server(address), Catch::Contains("exists and is not a socket"));
  std::ifstream kept(path);
  std::string text;
  std::getline(kept, text);
  CHECK(text == "keep me");
  std::filesystem::remove(path);
}

TEST_CASE("an abstract ipc socket is refused without CURVE") {
  CHECK_THROWS_WITH(Server("ipc://@coupler-test-" + std::to_string(::getpid())),
                    Catch::Contains("abstract socket has no file permissions"));
}

TEST_CASE("a server leaves a socket file on its path alone when it is no longer the one it bound") {
  const std::string address = fresh_address("ipc");
  const std::string path = path_of(address);
  auto first = std::make_unique<Server>(address);
  std::filesystem::remove(path);  // someone removed it, and another server took the path
  Server second(address);
  first.reset();
  CHECK(std::filesystem::exists(path));
  CHECK(answers(second, address));
}

TEST_CASE("the ipc socket file is the owner's alone whatever the umask") {
  Umask open(0);
  const std::string address = fresh_address("ipc");
  Server server(address);
  struct stat info {};
  REQUIRE(::stat(path_of(address).c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0600);
}

TEST_CASE("a server binds tcp://localhost as loopback") {
  Server server("tcp://localhost:*");
  CHECK_THAT(server.endpoint(), Catch::StartsWith("tcp://127.0.0.1:"));
  CHECK(answers(server, server.endpoint()));
}

TEST_CASE("a server and a client work over IPv6 loopback") {
  Server server("tcp://[::1]:*");
  CHECK_THAT(server.endpoint(), Catch::StartsWith("tcp://[::1]:"));
  CHECK(answers(server, server.endpoint()));
}

TEST_CASE("a connection that sends nothing after connecting is dropped after the handshake timeout") {
  ServerOptions options;
  options.handshake_timeout = 200ms;
  Server server("tcp://127.0.0.1:*", options);
  const std::string endpoint = server.endpoint();
  const int port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in in{};
  in.sin_family = AF_INET;
  in.sin_port = htons(static_cast<std::uint16_t>(port));
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&in), sizeof in) == 0);
  // Read what the server sends (its greeting) until it closes the connection; bounded by the receive timeout.
  timeval wait{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  const auto started = std::chrono::steady_clock::now();
  char buffer[256];
  ssize_t got = 0;
  for (int reads = 0; reads < 100 && (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0; ++reads) {
    (void)server.try_receive();  // the server's I/O runs in ZeroMQ's thread; this only keeps the loop honest
  }
  const auto waited = std::chrono::steady_clock::now() - started;
  ::close(fd);
  CHECK(got == 0);  // closed by the server, not timed out
  CHECK(waited < 3s);
}
