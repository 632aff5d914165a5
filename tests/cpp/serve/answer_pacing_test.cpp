// AnswerPacing: when a paced answer is due on the wall clock, and how a run's first Control anchors it.

#include <catch2/catch.hpp>

#include <chrono>
#include <limits>

#include <coupler/serve/answer_pacing.hpp>

using coupler::AnswerPacing;
using coupler::HotPathPacing;
using Clock = AnswerPacing::Clock;
using std::chrono::milliseconds;

TEST_CASE("an answer is due its simulated time over the speed after simulated time 0 is", "[answer_pacing]") {
  const auto started = Clock::now();
  const AnswerPacing pacing(HotPathPacing{0.5, 2.0, 0.0, 0.05}, started);
  CHECK(pacing.due_at(0.0) == started + milliseconds(500));
  CHECK(pacing.due_at(1.0) == started + milliseconds(1000));
}

TEST_CASE("the first Control of a run makes the time it stepped from due when it is taken", "[answer_pacing]") {
  const auto started = Clock::now();
  AnswerPacing pacing(HotPathPacing{-100.0, 1.0, 0.0, 0.05}, started);
  pacing.anchor(3.0, started + milliseconds(20));
  CHECK(pacing.due_at(3.0) == started + milliseconds(20));
  CHECK(pacing.due_at(3.1) == started + milliseconds(120));
}

TEST_CASE("an answer due later than the longest hold is held while others are served", "[answer_pacing]") {
  const auto started = Clock::now();
  const AnswerPacing pacing(HotPathPacing{0.0, 1.0, 0.0, 0.05}, started);
  CHECK(pacing.holds_long(0.1, started));
  CHECK_FALSE(pacing.holds_long(0.04, started));
}

TEST_CASE("without a longest hold every hold is slept through", "[answer_pacing]") {
  const auto started = Clock::now();
  const AnswerPacing pacing(HotPathPacing{0.0, 1.0, 0.0, std::numeric_limits<double>::infinity()}, started);
  CHECK_FALSE(pacing.holds_long(1000.0, started));
}

TEST_CASE("holding an answer waits until it is due and counts a late one", "[answer_pacing]") {
  const AnswerPacing pacing(HotPathPacing{0.0, 1.0, 0.01, 0.05}, Clock::now());
  CHECK_FALSE(pacing.hold_until_due(0.02));
  CHECK(Clock::now() >= pacing.due_at(0.02));
  CHECK(pacing.hold_until_due(-1.0));          // due a second ago: late
  CHECK_FALSE(pacing.hold_until_due(0.015));  // due less than late_after ago
}
