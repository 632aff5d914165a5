#pragma once
// The clock a paced run is lent in a test: real time, with simulated time 0
// due `seconds` from now (negative: it was due that long ago).

#include <chrono>

#include <coupler/serve/run_clock.hpp>

namespace coupler::test {

inline RunClock zero_due_in(double seconds) {
  RunClock clock(1.0);
  clock.anchor(0.0, RunClock::Clock::now() + std::chrono::duration_cast<RunClock::Clock::duration>(
                                                 std::chrono::duration<double>(seconds)));
  return clock;
}

}  // namespace coupler::test
