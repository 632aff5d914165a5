#include <coupler/serve/run_clock.hpp>

namespace coupler {

namespace {
using Seconds = std::chrono::duration<double>;
}  // namespace

RunClock::Clock::time_point RunClock::due_at(double time) const noexcept {
  if (!speed_) return wall0_;
  return wall0_ + std::chrono::duration_cast<Clock::duration>(Seconds((time - time0_) / *speed_));
}

double RunClock::due_in(double time, Clock::time_point now) const noexcept {
  if (!speed_) return 0.0;
  return Seconds(due_at(time) - now).count();
}

double RunClock::delay_until(double time, double late_after, Clock::time_point now) noexcept {
  const double delay = due_in(time, now);
  if (delay > 0.0) return delay;
  if (-delay > late_after) ++deadlines_missed_;
  return 0.0;
}

}  // namespace coupler
