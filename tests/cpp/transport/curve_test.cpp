// CurveZMQ: certificate files, and a server that admits only the clients it knows.

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <thread>

#include <coupler/transport/client.hpp>
#include <coupler/transport/curve_keys.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

#include "curve_files.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

// A server with its own key pair that allows only the keys in `allowed/`.
struct CurveSetup {
  TempDir keys;
  std::filesystem::path allowed = keys.path() / "allowed";
  CurveKeyPair server_keys = write_key_pair(keys.path(), "server");
  CurveKeyPair client_keys;
  CurveKeyPair stranger_keys = write_key_pair(keys.path(), "stranger");

  CurveSetup() {
    std::filesystem::create_directories(allowed);
    client_keys = write_key_pair(allowed, "controller");
  }

  ServerOptions server_options() const {
    ServerOptions options;
    options.curve_key_pair = load_curve_key_pair((keys.path() / "server.key_secret").string());
    options.curve_allowed_clients = load_curve_public_keys(allowed.string());
    return options;
  }

  ClientOptions client_options(const CurveKeyPair& own) const {
    ClientOptions options{1000ms, 0ms};
    options.curve_server_key = load_curve_public_key((keys.path() / "server.key").string());
    options.curve_key_pair = own;
    return options;
  }
};

// Collects what a server reports from its authentication thread.
class RefusalLog {
 public:
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(line);
      changed_.notify_all();
    };
  }
  std::size_t count(const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<std::size_t>(
        std::count_if(lines_.begin(), lines_.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; }));
  }
  // The first line containing `text`, waiting up to `timeout` for it.
  std::optional<std::string> wait_for(const std::string& text, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::optional<std::string> found;
    changed_.wait_for(lock, timeout, [&] {
      for (const auto& line : lines_) {
        if (line.find(text) != std::string::npos) found = line;
      }
      return found.has_value();
    });
    return found;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
};

}  // namespace

TEST_CASE("a key pair is read from a ZeroMQ certificate file") {
  TempDir dir;
  const CurveKeyPair written = write_key_pair(dir.path(), "peer");
  const CurveKeyPair read = load_curve_key_pair((dir.path() / "peer.key_secret").string());
  CHECK(read.public_key == written.public_key);
  CHECK(read.secret_key == written.secret_key);
  CHECK(load_curve_public_key((dir.path() / "peer.key").string()) == written.public_key);
}

TEST_CASE("a public key file given as a key pair is refused, naming the file") {
  TempDir dir;
  write_key_pair(dir.path(), "peer");
  const std::string path = (dir.path() / "peer.key").string();
  CHECK_THROWS_WITH(load_curve_key_pair(path), Catch::Contains(path) && Catch::Contains("no secret key"));
}

TEST_CASE("a certificate whose key is not Z85 is refused") {
  TempDir dir;
  const auto path = dir.path() / "bad.key";
  std::ofstream(path) << "curve\n    public-key = \"too short\"\n";
  CHECK_THROWS_WITH(load_curve_public_key(path.string()), Catch::Contains("not a 40-character Z85"));
}

TEST_CASE("a secret key file that group or others may read is refused, naming the file and chmod 600") {
  TempDir dir;
  write_key_pair(dir.path(), "peer");
  const auto path = dir.path() / "peer.key_secret";
  std::filesystem::permissions(path, std::filesystem::perms::group_read | std::filesystem::perms::others_read,
                               std::filesystem::perm_options::add);
  CHECK_THROWS_WITH(load_curve_key_pair(path.string()),
                    Catch::Contains(path.string()) && Catch::Contains("mode 0644") && Catch::Contains("chmod 600"));
}

TEST_CASE("an allow-list directory without keys is refused") {
  TempDir dir;
  CHECK_THROWS_WITH(load_curve_public_keys(dir.path().string()), Catch::Contains("holds no *.key file"));
}

TEST_CASE("a client whose key is allowed completes a request over CURVE") {
  CurveSetup setup;
  Server server("tcp://127.0.0.1:*", setup.server_options());
  Client client(server.endpoint(), setup.client_options(setup.client_keys));
  CHECK(client.mechanism() == "CURVE");
  client.send(HandshakeInitMessage{});
  const Request request = server.receive(2000ms);
  server.reply(request, HandshakeMessage{});
  CHECK(std::holds_alternative<HandshakeMessage>(client.receive()));
}

TEST_CASE("a client whose key is not allowed times out and the server logs its address and key") {
  CurveSetup setup;
  RefusalLog refusals;
  ServerOptions options = setup.server_options();
  options.on_refused_client = refusals.sink();
  Server server("tcp://127.0.0.1:*", options);
  Client stranger(server.endpoint(), setup.client_options(setup.stranger_keys));
  stranger.send(HandshakeInitMessage{});
  CHECK_THROWS_AS(server.receive(500ms), TimeoutError);
  CHECK_THROWS_AS(stranger.receive(500ms), TimeoutError);
  const auto line = refusals.wait_for(setup.stranger_keys.public_key, 2000ms);
  REQUIRE(line);
  CHECK_THAT(*line, Catch::Contains("127.0.0.1") && Catch::Contains("refused"));
}

TEST_CASE("a plain client cannot reach a CURVE server") {
  CurveSetup setup;
  Server server("tcp://127.0.0.1:*", setup.server_options());
  Client plain(server.endpoint(), ClientOptions{500ms, 0ms});
  CHECK(plain.mechanism() == "NULL");
  plain.send(HandshakeInitMessage{});
  CHECK_THROWS_AS(server.receive(500ms), TimeoutError);
  CHECK_THROWS_AS(plain.receive(500ms), TimeoutError);
}

TEST_CASE("a plain client refused by a CURVE server is logged, once a minute however many come") {
  CurveSetup setup;
  RefusalLog refusals;
  ServerOptions options = setup.server_options();
  options.on_refused_client = refusals.sink();
  Server server("tcp://127.0.0.1:*", options);
  for (int i = 0; i < 3; ++i) {
    Client plain(server.endpoint(), ClientOptions{300ms, 0ms});
    plain.send(HandshakeInitMessage{});
    CHECK_THROWS_AS(server.receive(300ms), TimeoutError);
    (void)server.take_closed_peers();  // reads the socket's connection events, refusals among them
  }
  // On a loaded machine the monitor's events come late: read them until the refusal is logged, or 2 s pass.
  std::optional<std::string> line;
  const auto until = std::chrono::steady_clock::now() + 2s;
  while (!(line = refusals.wait_for("does not speak CURVE", 0ms)) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
    (void)server.take_closed_peers();
  }
  REQUIRE(line);
  CHECK(refusals.count("does not speak CURVE") == 1);
}

TEST_CASE("two CURVE servers in one process keep their own allow-lists") {
  CurveSetup first;
  CurveSetup second;
  Server a("tcp://127.0.0.1:*", first.server_options());
  Server b("tcp://127.0.0.1:*", second.server_options());
  Client to_b_with_a_key(b.endpoint(), second.client_options(first.client_keys));
  to_b_with_a_key.send(HandshakeInitMessage{});
  CHECK_THROWS_AS(b.receive(500ms), TimeoutError);
  Client to_b(b.endpoint(), second.client_options(second.client_keys));
  to_b.send(HandshakeInitMessage{});
  CHECK(b.receive(2000ms).type() == MessageType::HandshakeInit);
}
