#include <coupler/serve/control_rounds.hpp>

#include <algorithm>
#include <utility>

#include <coupler/wire/error.hpp>

namespace coupler {

void ControlRounds::hold(const std::string& peer, std::uint64_t steps) {
  if (holds(peer)) throw Error("this controller's previous Control still waits for the others'");
  held_.push_back({peer, steps, std::nullopt});
}

void ControlRounds::attach(Request request) {
  const auto held = std::find_if(held_.begin(), held_.end(), [&](const Held& h) { return h.peer == request.peer(); });
  if (held == held_.end()) throw Error("a request attached to a Control that does not wait");
  held->request = std::move(request);
}

bool ControlRounds::holds(const std::string& peer) const {
  return std::any_of(held_.begin(), held_.end(), [&](const Held& h) { return h.peer == peer; });
}

std::optional<std::uint64_t> ControlRounds::due(const std::vector<std::string>& controllers) const {
  if (controllers.empty()) return std::nullopt;
  std::optional<std::uint64_t> steps;
  for (const std::string& peer : controllers) {
    const auto held = std::find_if(held_.begin(), held_.end(), [&](const Held& h) { return h.peer == peer; });
    if (held == held_.end()) return std::nullopt;
    const std::uint64_t asked = std::max<std::uint64_t>(held->steps, 1);
    steps = steps ? std::min(*steps, asked) : asked;
  }
  return steps;
}

ControlRounds::Round ControlRounds::take(const std::vector<std::string>& controllers) {
  Round round;
  std::optional<std::uint64_t> steps;
  for (const std::string& peer : controllers) {
    const auto held = std::find_if(held_.begin(), held_.end(), [&](const Held& h) { return h.peer == peer; });
    if (held == held_.end()) continue;
    const std::uint64_t asked = std::max<std::uint64_t>(held->steps, 1);
    steps = steps ? std::min(*steps, asked) : asked;
    round.peers.push_back(peer);
    if (held->request) round.requests.push_back(std::move(*held->request));
  }
  round.steps = steps.value_or(0);
  held_.clear();
  return round;
}

void ControlRounds::drop(const std::string& peer) {
  held_.erase(std::remove_if(held_.begin(), held_.end(), [&](const Held& h) { return h.peer == peer; }), held_.end());
}

std::vector<Request> ControlRounds::release() {
  std::vector<Request> waiting;
  for (Held& held : held_) {
    if (held.request) waiting.push_back(std::move(*held.request));
  }
  held_.clear();
  return waiting;
}

}  // namespace coupler
