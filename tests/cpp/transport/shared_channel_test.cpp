// SharedChannelServer and SharedChannelClient: one round trip at a time through shared memory, futex wake-ups.

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <chrono>
#include <string>
#include <thread>

#include <coupler/transport/shared_channel.hpp>
#include <coupler/wire/error.hpp>

using coupler::SharedChannelClient;
using coupler::SharedChannelServer;
using namespace std::chrono_literals;

TEST_CASE("a request through the shared channel gets its answer", "[shared_channel]") {
  SharedChannelServer server(1024);
  std::thread answering([&server] {
    for (int i = 0; i < 3; ++i) {
      const auto request = server.receive(2000ms);
      REQUIRE(request.has_value());
      server.reply("answer to " + std::string(*request));
    }
  });
  SharedChannelClient client(server.path());
  for (int i = 0; i < 3; ++i) {
    const std::string request = "request " + std::to_string(i);
    CHECK(client.exchange(request, 2000ms) == "answer to " + request);
  }
  answering.join();
}

TEST_CASE("the shared channel can be opened by its owner only", "[shared_channel]") {
  const SharedChannelServer server(1024);
  struct stat about {};
  REQUIRE(stat(server.path().c_str(), &about) == 0);
  CHECK((about.st_mode & 0777) == 0600);
}

TEST_CASE("a server without requests comes back empty after its timeout", "[shared_channel]") {
  SharedChannelServer server(1024);
  const auto started = std::chrono::steady_clock::now();
  CHECK_FALSE(server.receive(30ms).has_value());
  CHECK(std::chrono::steady_clock::now() - started >= 30ms);
}

TEST_CASE("a client without an answer times out", "[shared_channel]") {
  SharedChannelServer server(1024);
  SharedChannelClient client(server.path());
  CHECK_THROWS_AS(client.exchange("nobody answers", 30ms), coupler::TimeoutError);
}

TEST_CASE("a frame over the channel's capacity is refused in one line", "[shared_channel]") {
  SharedChannelServer server(16);
  SharedChannelClient client(server.path());
  CHECK_THROWS_WITH(client.exchange(std::string(17, 'x'), 30ms),
                    "a request of 17 bytes is over the shared channel's 16-byte frames");
}
