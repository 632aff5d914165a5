#include <coupler/serve/world_control_check.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <tuple>
#include <vector>

#include <coupler/wire/limits.hpp>

namespace coupler {
namespace {

// A number that is not finite, as Python prints it.
std::string not_finite(double x) {
  if (std::isnan(x)) return "nan";
  return x > 0 ? "inf" : "-inf";
}

bool all_finite(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double x) { return std::isfinite(x); });
}

// The first ten worlds of `worlds` as a list, " ..." after it when there are more.
std::string first_worlds(const std::vector<std::uint32_t>& worlds) {
  constexpr std::size_t kShown = 10;
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < std::min(worlds.size(), kShown); ++i) out << (i ? ", " : "") << worlds[i];
  out << ']' << (worlds.size() > kShown ? " ..." : "");
  return out.str();
}

}  // namespace

std::optional<std::string> world_control_problem(const ControlMessage& control, const WorldControlShape& shape) {
  const std::size_t n = shape.worlds;
  const std::size_t width = shape.control_width;
  if (control.worlds != n) {
    return "a Control for " + std::to_string(control.worlds) + " worlds; this server has " + std::to_string(n);
  }
  if (control.steps > limits::kMaxStepsPerControl) {
    return "steps " + std::to_string(control.steps) + " exceeds the maximum of " +
           std::to_string(limits::kMaxStepsPerControl);
  }
  const auto& values = control.world_controls;
  if (!values.empty() && values.size() != n * width) {
    return "worldControls has " + std::to_string(values.size()) + " numbers; " + std::to_string(n) +
           " worlds of " + std::to_string(width) + " (controls, then events) take " + std::to_string(n * width) +
           ", or none to step no world";
  }
  const auto bad = std::find_if(values.begin(), values.end(), [](double x) { return !std::isfinite(x); });
  if (bad != values.end()) {
    const auto first = static_cast<std::size_t>(bad - values.begin());
    return "number " + std::to_string(first % width) + " of world " + std::to_string(first / width) + " is " +
           not_finite(*bad);
  }
  const auto& resets = control.reset_worlds;
  for (std::size_t k = 0; k < resets.size(); ++k) {
    if (resets[k] >= n || (k > 0 && resets[k] <= resets[k - 1])) {
      return "resetWorlds must list worlds below " + std::to_string(n) + " in ascending order, each once; got " +
             first_worlds(resets);
    }
  }
  for (const auto& [name, state, size] : {std::tuple{"resetQpos", &control.reset_qpos, shape.nq},
                                          std::tuple{"resetQvel", &control.reset_qvel, shape.nv}}) {
    if (!state->empty() && state->size() != resets.size() * size) {
      return std::string(name) + " has " + std::to_string(state->size()) + " numbers; " +
             std::to_string(resets.size()) + " reset worlds of " + std::to_string(size) + " take " +
             std::to_string(resets.size() * size) + ", or none for the scene's initial state";
    }
    if (!all_finite(*state)) return std::string(name) + " holds a number that is not finite";
  }
  return std::nullopt;
}

}  // namespace coupler
