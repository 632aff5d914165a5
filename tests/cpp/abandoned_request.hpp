#pragma once
// A client that gave up on one request and asked again: what the tests of
// late answers start from.

#include <catch2/catch.hpp>

#include <chrono>
#include <utility>

#include <coupler/transport/client.hpp>
#include <coupler/wire/error.hpp>
#include <coupler/transport/server.hpp>

struct AbandonedRequest {
  coupler::Request abandoned;  // a SensorRequest whose receive timed out
  coupler::Request current;    // the Reset sent after it, still waiting for its answer
};

// Both requests have reached the server; neither is answered yet.
inline AbandonedRequest abandon_one_request(coupler::Server& server, coupler::Client& client) {
  using namespace std::chrono_literals;
  client.send(coupler::SensorRequestMessage{});
  coupler::Request abandoned = server.receive(2000ms);
  REQUIRE_THROWS_AS(client.receive(20ms), coupler::TimeoutError);
  client.send(coupler::ResetMessage{});
  coupler::Request current = server.receive(2000ms);
  return {std::move(abandoned), std::move(current)};
}
