// The client's blocking receive, one wait on the socket per answer: what it
// promises beside speed (a deadline never cut short, a late answer dropped,
// a signal survived).

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <future>
#include <thread>

#include <pthread.h>

#include <coupler/transport/client.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

#include "abandoned_request.hpp"
#include "test_endpoints.hpp"

using namespace coupler;
using namespace std::chrono_literals;

namespace {

extern "C" void ignore_signal(int) {}

// Installs a handler without SA_RESTART for the test's lifetime, so a signal
// makes blocking system calls fail with EINTR instead of being restarted.
class InterruptingSignal {
 public:
  InterruptingSignal() {
    struct sigaction action {};
    action.sa_handler = ignore_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    sigaction(SIGUSR1, &action, &previous_);
  }
  ~InterruptingSignal() { sigaction(SIGUSR1, &previous_, nullptr); }
  InterruptingSignal(const InterruptingSignal&) = delete;
  InterruptingSignal& operator=(const InterruptingSignal&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace

TEST_CASE("a client's receive that times out never returns before its timeout") {
  Server server(fresh_address("ipc"));
  Client client(server.endpoint());
  for (int i = 0; i < 10; ++i) {
    client.send(SensorRequestMessage{});
    (void)server.receive(2000ms);  // taken and never answered
    const auto started = std::chrono::steady_clock::now();
    CHECK_THROWS_AS(client.receive(20ms), TimeoutError);
    CHECK(std::chrono::steady_clock::now() - started >= 20ms);
  }
}

TEST_CASE("a late answer arriving during a blocking receive is dropped and the receive waits for its own") {
  Server server(fresh_address("ipc"));
  Client client(server.endpoint());
  const AbandonedRequest requests = abandon_one_request(server, client);

  auto answers = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(50ms);
    server.reply(requests.abandoned, ErrorMessage{0, "stale"});
    std::this_thread::sleep_for(50ms);
    server.reply(requests.current, ResetMessage{});
  });
  CHECK(std::holds_alternative<ResetMessage>(client.receive(2000ms)));
  answers.get();
}

TEST_CASE("a signal during a blocking receive neither ends it nor loses the answer") {
  const InterruptingSignal interrupting;
  Server server(fresh_address("ipc"));
  Client client(server.endpoint());
  client.send(SensorRequestMessage{});
  const Request request = server.receive(2000ms);

  const pthread_t receiver = pthread_self();
  auto interrupter = std::async(std::launch::async, [&] {
    for (int i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(20ms);
      pthread_kill(receiver, SIGUSR1);
    }
    server.reply(request, ResetMessage{});
  });
  CHECK(std::holds_alternative<ResetMessage>(client.receive(2000ms)));
  interrupter.get();
}
