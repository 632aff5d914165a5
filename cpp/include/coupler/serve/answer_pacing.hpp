#pragma once
// Wall-clock pacing of a run's answers (coupler serve --realtime), as one
// call of a hot path sees it: when an answer stepped to a simulated time is
// due on the caller's RunClock, the hold until then (a late one counted on
// that clock), and the anchor a run's first Control sets there. One rule for
// the single-world hot path (hot_path.hpp) and a batch's (world_hot_path.hpp).

#include <chrono>
#include <cstdint>
#include <limits>

#include <coupler/serve/run_clock.hpp>

namespace coupler {

// Wall-clock pacing of a run (coupler serve --realtime): the answer to a
// Control is held until the wall clock reaches the simulated time it stepped
// to, so the simulation never runs ahead of real time. The last
// `longest_hold` of a hold is slept through; before that, the answer (a
// lone controller's, or a round's to each of its Controls) waits while other
// peers are served (the hot path hands what it does not serve back to the
// caller, the answer still held).
struct HotPathPacing {
  // The run's clock, with a speed: the caller's, which outlives the run and
  // is used by no one else meanwhile. Answers are due by it, the first
  // Control of a run anchors it, and a deadline missed is counted on it.
  RunClock* clock = nullptr;
  // A Control answered more than this many seconds after its time is due counts as a missed deadline.
  double late_after = 0.0;
  // Seconds of a hold slept through without serving anyone.
  double longest_hold = std::numeric_limits<double>::infinity();
};

// HotPathPacing for one run().
class AnswerPacing {
 public:
  using Clock = RunClock::Clock;

  // Throws coupler::Error unless `pacing` has a clock with a speed.
  explicit AnswerPacing(const HotPathPacing& pacing);

  // When an answer stepped to simulated `time` is due on the wall clock.
  Clock::time_point due_at(double time) const noexcept { return clock_.due_at(time); }
  // Sleeps until an answer stepped to `time` is due; true when it was due more than late_after ago (a missed
  // deadline, counted on the clock).
  bool hold_until_due(double time);
  // An answer stepped to `time` waits longer than longest_hold from `now`: it is held while others are served.
  bool holds_long(double time, Clock::time_point now) const noexcept { return due_at(time) - now > longest_hold_; }
  // The run starts at `wall`, from simulated time `stepped_from`: it is due then.
  void anchor(double stepped_from, Clock::time_point wall) noexcept { clock_.anchor(stepped_from, wall); }

  Clock::duration longest_hold() const noexcept { return longest_hold_; }
  double speed() const noexcept { return *clock_.speed(); }

 private:
  RunClock& clock_;
  double late_after_;
  Clock::duration longest_hold_;
};

}  // namespace coupler
