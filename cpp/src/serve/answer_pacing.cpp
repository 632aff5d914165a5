#include <coupler/serve/answer_pacing.hpp>

#include <cmath>
#include <thread>

namespace coupler {

namespace {
using Seconds = std::chrono::duration<double>;
}  // namespace

AnswerPacing::AnswerPacing(const HotPathPacing& pacing, Clock::time_point started) noexcept
    : clock_(pacing.speed),
      late_after_(pacing.late_after),
      // Infinite: every hold is slept through (a billion seconds is as good, and fits the clock's duration).
      longest_hold_(std::chrono::duration_cast<Clock::duration>(
          Seconds(std::isfinite(pacing.longest_hold) ? pacing.longest_hold : 1e9))) {
  clock_.anchor(0.0, started + std::chrono::duration_cast<Clock::duration>(Seconds(pacing.zero_due_in)));
}

bool AnswerPacing::hold_until_due(double time) const {
  const double wait = clock_.due_in(time, Clock::now());
  if (wait > 0.0) {
    std::this_thread::sleep_for(Seconds(wait));
    return false;
  }
  return -wait > late_after_;
}

}  // namespace coupler
