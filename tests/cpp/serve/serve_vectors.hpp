#pragma once
// The serving vectors (tests/vectors/serve/): a controller's session with a
// server as make_serve_vectors.py recorded it, request by request, with the
// Python server's answers; and what C++ holds its part of the server to.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <coupler/wire/messages.hpp>

namespace coupler::test {

using Frames = std::vector<std::string>;

struct Exchange {
  Frames request;
  std::optional<Frames> answer;  // none: no answer is due
};

// The exchanges of tests/vectors/serve/<name>_session.bin ("static", "worlds").
std::vector<Exchange> serving_vectors(const std::string& name);

// The message a frame holds, or nothing when it is not a valid message.
std::optional<Message> decoded(const std::string& frame);

// The ErrorMessage an answer of the usual shape (delimiter, payload) holds, if it holds one.
std::optional<ErrorMessage> error_in(const std::optional<Frames>& answer);

// Sends every request of `session` to a coupler::Server, answers each one it hands over with the recorded answer,
// and checks (Catch CHECKs) that a peer receives every recorded answer, those the server gives itself included.
// Returns how many requests the server answered itself (frames it cannot hand over).
std::size_t answered_by_server(const std::vector<Exchange>& session);

}  // namespace coupler::test
