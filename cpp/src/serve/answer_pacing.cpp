#include <coupler/serve/answer_pacing.hpp>

#include <cmath>
#include <thread>

#include <coupler/wire/error.hpp>

namespace coupler {

namespace {
using Seconds = std::chrono::duration<double>;

RunClock& paced_clock(const HotPathPacing& pacing) {
  if (pacing.clock == nullptr || !pacing.clock->speed()) throw Error("a paced run needs a clock with a speed");
  return *pacing.clock;
}
}  // namespace

AnswerPacing::AnswerPacing(const HotPathPacing& pacing)
    : clock_(paced_clock(pacing)),
      late_after_(pacing.late_after),
      // Infinite: every hold is slept through (a billion seconds is as good, and fits the clock's duration).
      longest_hold_(std::chrono::duration_cast<Clock::duration>(
          Seconds(std::isfinite(pacing.longest_hold) ? pacing.longest_hold : 1e9))) {}

bool AnswerPacing::hold_until_due(double time) {
  const std::uint64_t missed = clock_.deadlines_missed();
  const double wait = clock_.delay_until(time, late_after_, Clock::now());
  if (wait > 0.0) std::this_thread::sleep_for(Seconds(wait));
  return clock_.deadlines_missed() > missed;
}

}  // namespace coupler
