#pragma once
// When a simulated time is due on the wall clock (coupler serve --realtime),
// from an anchor set when a run (re)starts. The one clock of a paced run:
// the serving loop's (coupler.serve.run_clock binds this class), which it
// lends to the hot paths' answer pacing (answer_pacing.hpp) and the free
// run's steps (hot_path.hpp); they anchor it and count its missed deadlines.

#include <chrono>
#include <cstdint>
#include <optional>

namespace coupler {

class RunClock {
 public:
  using Clock = std::chrono::steady_clock;

  // `speed`: simulated seconds per wall second (1: real time), positive; nullopt: as fast as possible, and then
  // every time is due at once and nothing is ever late.
  explicit RunClock(std::optional<double> speed = 1.0) noexcept : speed_(speed) {}

  std::optional<double> speed() const noexcept { return speed_; }

  // Pacing restarts: simulated `time` is due at `wall`.
  void anchor(double time, Clock::time_point wall) noexcept {
    time0_ = time;
    wall0_ = wall;
  }

  // When simulated `time` is due (unpaced: the anchor's wall time, which has always passed).
  Clock::time_point due_at(double time) const noexcept;
  // Seconds from `now` until simulated `time` is due; negative when it is late, 0 unpaced.
  double due_in(double time, Clock::time_point now) const noexcept;
  // Seconds to wait from `now` until simulated `time` is due; 0 when it is due, counting a missed deadline when it
  // was due more than `late_after` seconds ago.
  double delay_until(double time, double late_after, Clock::time_point now) noexcept;

  std::uint64_t deadlines_missed() const noexcept { return deadlines_missed_; }

 private:
  std::optional<double> speed_;
  double time0_ = 0.0;
  Clock::time_point wall0_{};
  std::uint64_t deadlines_missed_ = 0;
};

}  // namespace coupler
