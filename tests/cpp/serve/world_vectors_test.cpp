// The worlds session of the serving vectors (tests/vectors/serve/worlds_session.bin): a controller driving three
// worlds of worlds_scene.xml through a batched server, with the answers coupler serve gives. The server refuses a
// Control for every world that does not fit its batch with coupler::world_control_problem's line after the prefix
// below, and a frame naming more worlds than its field holds while decoding it, in coupler::Server. C++ holds both
// to the recorded answers.

#include <catch2/catch.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <coupler/serve/world_control_check.hpp>
#include <coupler/wire/codec.hpp>
#include <coupler/wire/control_layout.hpp>
#include <coupler/wire/error.hpp>

#include "serve/serve_vectors.hpp"

using namespace coupler;
using namespace coupler::test;

namespace {

// The batched server's refusal of a Control for every world that does not fit its batch: this, then the check's line.
constexpr const char* kMismatch = "Control for every world does not match the handshake: ";

// worlds_scene.xml's one slide joint (the drawer's) is a world's whole state: one qpos and one qvel.
constexpr std::size_t kStateSize = 1;

std::vector<Exchange> worlds_session() { return serving_vectors("worlds"); }

}  // namespace

TEST_CASE("the server answers the worlds session's frame naming 2^32 worlds itself, as the serving vectors say") {
  CHECK(answered_by_server(worlds_session()) == 1);
}

TEST_CASE("the check of a Control for every world refuses the Controls the batched server refuses as not fitting") {
  const std::vector<Exchange> session = worlds_session();
  const auto handshake = std::get<HandshakeMessage>(decode(session.front().answer->back()));
  const ControlLayout layout(handshake);
  const WorldControlShape shape{handshake.worlds, layout.size() + layout.event_count(), kStateSize, kStateSize};
  std::size_t refused = 0;
  std::size_t passed = 0;
  for (const Exchange& exchange : session) {
    const std::optional<Message> message = decoded(exchange.request.back());
    if (!message || !std::holds_alternative<ControlMessage>(*message)) continue;
    const auto& control = std::get<ControlMessage>(*message);
    if (control.worlds == 0) continue;  // an ordinary Control, which drives world 0
    const std::optional<std::string> problem = world_control_problem(control, shape);
    const std::optional<ErrorMessage> error = error_in(exchange.answer);
    if (error && error->text.rfind(kMismatch, 0) == 0) {
      ++refused;
      CHECK(error->code == static_cast<int>(ErrorCode::ControlMismatch));
      CHECK(problem == error->text.substr(std::string(kMismatch).size()));
    } else {
      // Answered, or refused for what the physics cannot take (a mocap body's zero quaternion), which fits the batch.
      ++passed;
      CHECK_FALSE(problem);
    }
  }
  CHECK(refused == 8);
  CHECK(passed == 18);
}
