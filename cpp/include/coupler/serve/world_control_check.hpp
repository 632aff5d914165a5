#pragma once
// The one check of a Control for every world (the "worlds" extension) against the batch it is sent to:
// the native hot path takes only Controls it passes, and the server's refusal of any other names the first
// problem it finds.

#include <cstddef>
#include <optional>
#include <string>

#include <coupler/wire/messages.hpp>

namespace coupler {

// What a batched server's Controls for every world must fit.
struct WorldControlShape {
  std::size_t worlds = 0;         // how many worlds the server steps
  std::size_t control_width = 0;  // numbers per world: its control values, then one per control event
  std::size_t nq = 0;             // the size of one world's qpos
  std::size_t nv = 0;             // and of its qvel
};

// The first thing wrong with `control` for a batch of `shape`, in one line ("a Control for 3 worlds; this
// server has 4"); nullopt when nothing is. It checks the worlds, the steps (limits::kMaxStepsPerControl),
// the size of the values (every world's, or none to step no world) and that they are finite, the worlds to
// reset (below the count, ascending, each once) and the states to reset them to (one per reset world or
// none, finite).
std::optional<std::string> world_control_problem(const ControlMessage& control, const WorldControlShape& shape);

}  // namespace coupler
