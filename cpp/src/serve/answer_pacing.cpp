#include <coupler/serve/answer_pacing.hpp>

#include <cmath>
#include <thread>

namespace coupler {

namespace {
using Seconds = std::chrono::duration<double>;
}  // namespace

AnswerPacing::AnswerPacing(const HotPathPacing& pacing, Clock::time_point started) noexcept
    : pacing_(pacing),
      started_(started),
      // Infinite: every hold is slept through (a billion seconds is as good, and fits the clock's duration).
      longest_hold_(std::chrono::duration_cast<Clock::duration>(
          Seconds(std::isfinite(pacing.longest_hold) ? pacing.longest_hold : 1e9))) {}

AnswerPacing::Clock::time_point AnswerPacing::due_at(double time) const noexcept {
  return started_ + std::chrono::duration_cast<Clock::duration>(Seconds(pacing_.zero_due_in + time / pacing_.speed));
}

bool AnswerPacing::hold_until_due(double time) const {
  const auto due = due_at(time);
  const auto now = Clock::now();
  if (due > now) {
    std::this_thread::sleep_for(due - now);
    return false;
  }
  return Seconds(now - due).count() > pacing_.late_after;
}

void AnswerPacing::anchor(double stepped_from, Clock::time_point wall) noexcept {
  pacing_.zero_due_in = Seconds(wall - started_).count() - stepped_from / pacing_.speed;
}

}  // namespace coupler
