// RunClock: when a simulated time is due on the wall clock, and which waits count as missed deadlines.

#include <catch2/catch.hpp>

#include <chrono>
#include <optional>

#include <coupler/serve/run_clock.hpp>

using coupler::RunClock;
using Clock = RunClock::Clock;
using std::chrono::milliseconds;

TEST_CASE("a simulated time is due its distance from the anchor over the speed", "[run_clock]") {
  RunClock clock(2.0);
  const auto wall = Clock::now();
  clock.anchor(8.0, wall);
  CHECK(clock.due_at(8.0) == wall);
  CHECK(clock.due_at(8.5) == wall + milliseconds(250));
  CHECK(clock.due_in(8.2, wall) == Approx(0.1).margin(1e-9));
  CHECK(clock.due_in(7.8, wall) == Approx(-0.1).margin(1e-9));  // before the anchor: late
}

TEST_CASE("anchoring again restarts pacing from the new time", "[run_clock]") {
  RunClock clock(1.0);
  const auto wall = Clock::now();
  clock.anchor(0.0, wall - milliseconds(1000));
  clock.anchor(5.0, wall);
  CHECK(clock.due_in(5.5, wall) == Approx(0.5).margin(1e-9));
}

TEST_CASE("an unpaced clock has every time due at once and none late", "[run_clock]") {
  RunClock clock(std::nullopt);
  const auto wall = Clock::now();
  clock.anchor(0.0, wall - milliseconds(1000));
  CHECK(clock.due_in(1000.0, wall) == 0.0);
  CHECK(clock.delay_until(-1000.0, 0.0, wall) == 0.0);
  CHECK(clock.deadlines_missed() == 0);
}

TEST_CASE("a time due more than late_after ago counts as a missed deadline, one within it does not",
          "[run_clock]") {
  RunClock clock(1.0);
  const auto wall = Clock::now();
  clock.anchor(0.0, wall);
  CHECK(clock.delay_until(0.001, 0.005, wall + milliseconds(10)) == 0.0);  // 9 ms late
  CHECK(clock.delay_until(0.008, 0.005, wall + milliseconds(10)) == 0.0);  // 2 ms late: within the allowance
  CHECK(clock.deadlines_missed() == 1);
  CHECK(clock.delay_until(0.02, 0.005, wall + milliseconds(10)) == Approx(0.01).margin(1e-9));  // early: the wait
  CHECK(clock.deadlines_missed() == 1);
}
