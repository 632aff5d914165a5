// AnswerPacing: when a paced answer is due on the caller's clock, and how a run's first Control anchors it.

#include <catch2/catch.hpp>

#include <chrono>
#include <limits>
#include <optional>

#include <coupler/serve/answer_pacing.hpp>

using coupler::AnswerPacing;
using coupler::HotPathPacing;
using coupler::RunClock;
using Clock = AnswerPacing::Clock;
using std::chrono::milliseconds;

namespace {
// A clock at `speed` with simulated time 0 due at `wall`.
RunClock anchored(double speed, Clock::time_point wall) {
  RunClock clock(speed);
  clock.anchor(0.0, wall);
  return clock;
}
}  // namespace

TEST_CASE("an answer is due when the caller's clock says", "[answer_pacing]") {
  const auto started = Clock::now();
  RunClock clock = anchored(2.0, started + milliseconds(500));
  const AnswerPacing pacing(HotPathPacing{&clock, 0.0, 0.05});
  CHECK(pacing.due_at(0.0) == started + milliseconds(500));
  CHECK(pacing.due_at(1.0) == started + milliseconds(1000));
}

TEST_CASE("the first Control of a run anchors the caller's clock at the time it stepped from", "[answer_pacing]") {
  const auto started = Clock::now();
  RunClock clock = anchored(1.0, started - milliseconds(100000));
  AnswerPacing pacing(HotPathPacing{&clock, 0.0, 0.05});
  pacing.anchor(3.0, started + milliseconds(20));
  CHECK(pacing.due_at(3.1) == started + milliseconds(120));
  CHECK(clock.due_at(3.0) == started + milliseconds(20));
}

TEST_CASE("an answer due later than the longest hold is held while others are served", "[answer_pacing]") {
  const auto started = Clock::now();
  RunClock clock = anchored(1.0, started);
  const AnswerPacing pacing(HotPathPacing{&clock, 0.0, 0.05});
  CHECK(pacing.holds_long(0.1, started));
  CHECK_FALSE(pacing.holds_long(0.04, started));
}

TEST_CASE("without a longest hold every hold is slept through", "[answer_pacing]") {
  const auto started = Clock::now();
  RunClock clock = anchored(1.0, started);
  const AnswerPacing pacing(HotPathPacing{&clock, 0.0, std::numeric_limits<double>::infinity()});
  CHECK_FALSE(pacing.holds_long(1000.0, started));
}

TEST_CASE("holding an answer waits until it is due and counts a late one on the clock", "[answer_pacing]") {
  RunClock clock = anchored(1.0, Clock::now());
  AnswerPacing pacing(HotPathPacing{&clock, 0.01, 0.05});
  CHECK_FALSE(pacing.hold_until_due(0.02));
  CHECK(Clock::now() >= pacing.due_at(0.02));
  CHECK(pacing.hold_until_due(-1.0));          // due a second ago: late
  CHECK_FALSE(pacing.hold_until_due(0.015));  // due less than late_after ago
  CHECK(clock.deadlines_missed() == 1);
}

TEST_CASE("pacing needs a clock with a speed", "[answer_pacing]") {
  RunClock unpaced(std::nullopt);
  CHECK_THROWS_WITH(AnswerPacing(HotPathPacing{&unpaced, 0.0, 0.05}), "a paced run needs a clock with a speed");
  CHECK_THROWS_WITH(AnswerPacing(HotPathPacing{nullptr, 0.0, 0.05}), "a paced run needs a clock with a speed");
}
