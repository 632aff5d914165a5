#include <coupler/serve/free_run_states.hpp>

#include <algorithm>

#include <coupler/wire/error.hpp>

namespace coupler {

FreeRunStates::FreeRunStates(double per_second, double burst)
    : per_second_(per_second), burst_(burst), tokens_(burst), filled_at_(Clock::now()) {
  if (!(per_second > 0.0) || !(burst >= 1.0)) throw Error("free-run states need a positive rate and a burst of one or more");
}

bool FreeRunStates::take(Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - filled_at_).count();
  const double tokens = std::min(burst_, tokens_ + std::max(elapsed, 0.0) * per_second_);
  filled_at_ = now;
  if (tokens < 1.0) {
    tokens_ = tokens;
    unseen_ = true;
    return false;
  }
  tokens_ = tokens - 1.0;
  unseen_ = false;
  return true;
}

}  // namespace coupler
