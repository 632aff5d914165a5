#pragma once
// Which of a free run's states an observer sees. A free run steps on its
// own clock, maybe thousands of times a wall second with nobody asking: the
// observer sees the state after a step while that keeps to `per_second` on
// average, in bursts of up to `burst` (a token bucket), and the last state
// when the server stops. One rule for the Python loop's observer and the
// C++ hot path, which share one FreeRunStates.

#include <chrono>

namespace coupler {

class FreeRunStates {
 public:
  using Clock = std::chrono::steady_clock;

  FreeRunStates(double per_second, double burst);

  // A step was taken at `now`: true when its state is to be shown.
  bool take(Clock::time_point now = Clock::now());
  // True when the state of the last step taken has not been shown.
  bool unseen() const noexcept { return unseen_; }
  // The last state was shown another way (the run's last, at its end).
  void seen() noexcept { unseen_ = false; }

 private:
  double per_second_;
  double burst_;
  double tokens_;  // states that may be shown now
  Clock::time_point filled_at_;  // when the tokens were last counted
  bool unseen_ = false;
};

}  // namespace coupler
