#include <coupler/serve/step_chunks.hpp>

#include <cmath>

#include <coupler/wire/error.hpp>

namespace coupler {

StepChunks::StepChunks(double seconds) : seconds_(seconds) {
  if (!(seconds > 0.0)) throw Error("a chunk's seconds of stepping must be positive");
}

void StepChunks::took(std::uint64_t steps, double seconds) noexcept {
  if (steps == 0) return;
  if (!(seconds > 0.0)) {
    size_ = steps * 2;
    return;
  }
  const double sized = std::round(static_cast<double>(steps) * seconds_ / seconds);
  // Far beyond any Control's steps, and inside what the integer holds.
  constexpr double kLargest = 1e12;
  size_ = sized < 1.0 ? 1 : static_cast<std::uint64_t>(sized < kLargest ? sized : kLargest);
}

}  // namespace coupler
