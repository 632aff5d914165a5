// FreeRunStates: which of a free run's states its observer sees, `per_second` on average in bursts of `burst`.

#include <chrono>

#include <catch2/catch.hpp>

#include <coupler/serve/free_run_states.hpp>
#include <coupler/wire/error.hpp>

using coupler::FreeRunStates;
using Clock = FreeRunStates::Clock;

namespace {

// How many of `steps` steps, taken `apart` seconds apart from `start`, are shown.
int shown(FreeRunStates& states, Clock::time_point start, int steps, double apart) {
  int seen = 0;
  for (int k = 1; k <= steps; ++k) {
    const auto at = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(k * apart));
    seen += states.take(at) ? 1 : 0;
  }
  return seen;
}

}  // namespace

TEST_CASE("a free run keeping to the rate shows every step", "[free_run_states]") {
  FreeRunStates states(1000.0, 250.0);
  CHECK(shown(states, Clock::now(), 5000, 1.5e-3) == 5000);
  CHECK_FALSE(states.unseen());
}

TEST_CASE("a burst of steps catching up shows every step up to the burst", "[free_run_states]") {
  FreeRunStates states(1000.0, 250.0);
  const auto now = Clock::now() + std::chrono::seconds(1);  // the bucket is full
  CHECK(shown(states, now, 250, 0.0) == 250);
  CHECK_FALSE(states.take(now));
}

TEST_CASE("a free run stepping faster for longer shows about the rate's worth, the last one unseen",
          "[free_run_states]") {
  FreeRunStates states(1000.0, 250.0);
  const auto start = Clock::now() + std::chrono::seconds(1);
  // 20,000 steps in 2 s: the burst, then a thousand a second.
  const int seen = shown(states, start, 20000, 1e-4);
  CHECK(seen >= 250 + 1990);
  CHECK(seen <= 250 + 2000 + 1);
  CHECK(states.unseen());  // shown at the run's end another way
  states.seen();
  CHECK_FALSE(states.unseen());
}

TEST_CASE("free-run states need a positive rate and a burst of one or more", "[free_run_states]") {
  CHECK_THROWS_AS(FreeRunStates(0.0, 10.0), coupler::Error);
  CHECK_THROWS_AS(FreeRunStates(1000.0, 0.5), coupler::Error);
}
