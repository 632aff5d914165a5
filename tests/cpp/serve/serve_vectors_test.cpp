// The serving vectors (tests/vectors/serve/): a controller's session with the
// static scene and the server's answers, as the Python server sends them.
// C++ holds its part of the server to them: coupler::Server answers the bad
// frames itself, and ControlLayout refuses the Controls the server refuses,
// with the same code and text.

#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>

#include "serve/serve_vectors.hpp"

using namespace coupler;
using namespace coupler::test;

namespace {

std::vector<Exchange> static_session() { return serving_vectors("static"); }

}  // namespace

TEST_CASE("the serving vectors hold a session with answers and requests left unanswered") {
  const std::vector<Exchange> session = static_session();
  REQUIRE(session.size() > 50);
  REQUIRE(session.front().answer);
  const auto handshake = decoded(session.front().answer->back());
  REQUIRE(handshake);
  CHECK(std::holds_alternative<HandshakeMessage>(*handshake));
}

TEST_CASE("the server answers the session's bad frames itself, as the serving vectors say") {
  CHECK(answered_by_server(static_session()) == 6);
}

TEST_CASE("the control layout refuses the Controls the server refuses, with their code and text") {
  const std::vector<Exchange> session = static_session();
  const ControlLayout layout(std::get<HandshakeMessage>(decode(session.front().answer->back())));
  std::vector<double> values(layout.size());
  std::vector<std::uint8_t> values_set(layout.objects().size()), events_set(layout.event_count()),
      events_on(layout.event_count());
  const ControlTargets targets{values.data(), values_set.data(), events_set.data(), events_on.data()};
  std::size_t refused = 0;
  std::size_t read = 0;
  for (const Exchange& exchange : session) {
    if (exchange.request.size() != 2) continue;
    const std::optional<Message> message = decoded(exchange.request.back());
    if (!message || !std::holds_alternative<ControlMessage>(*message)) continue;
    const std::optional<ErrorMessage> error = error_in(exchange.answer);
    if (error && error->code == static_cast<int>(ErrorCode::ControlMismatch)) {
      ++refused;
      try {
        layout.decode(exchange.request.back(), targets);
        FAIL("a Control the server refused was read: " << error->text);
      } catch (const ProtocolError& e) {
        CHECK(static_cast<int>(e.code()) == error->code);
        CHECK(std::string(e.what()) == error->text);
      }
    } else {
      ++read;
      CHECK_NOTHROW(layout.decode(exchange.request.back(), targets));
    }
  }
  CHECK(refused == 6);
  CHECK(read > 30);
}
