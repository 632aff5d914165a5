// RateLimitedLog: peer-triggered log lines are bounded per kind and interval.

#include <catch2/catch.hpp>

#include <chrono>

#include <coupler/transport/rate_limited_log.hpp>
#include <coupler/wire/error.hpp>

using coupler::RateLimitedLog;
using std::chrono::seconds;

TEST_CASE("at most burst lines of a kind are admitted per interval", "[rate_limited_log]") {
  RateLimitedLog limit(3, seconds(60));
  const RateLimitedLog::Clock::time_point start{};
  int admitted = 0;
  for (int k = 0; k < 1000; ++k) admitted += limit.admit("bad frame", start).has_value() ? 1 : 0;
  CHECK(admitted == 3);
}

TEST_CASE("kinds are counted apart", "[rate_limited_log]") {
  RateLimitedLog limit(1, seconds(60));
  const RateLimitedLog::Clock::time_point start{};
  CHECK(limit.admit("bad frame", start) == 0u);
  CHECK(limit.admit("refused", start) == 0u);
  CHECK_FALSE(limit.admit("bad frame", start).has_value());
}

TEST_CASE("after the interval the next line learns how many were left out", "[rate_limited_log]") {
  RateLimitedLog limit(1, seconds(60));
  const RateLimitedLog::Clock::time_point start{};
  for (int k = 0; k < 5; ++k) limit.admit("bad frame", start);
  CHECK(limit.admit("bad frame", start + seconds(60)) == 4u);
  CHECK(limit.left_out_line(4) == "4 more like the next line were left out in the last 60 s");
}

TEST_CASE("a burst of zero is refused", "[rate_limited_log]") {
  CHECK_THROWS_AS(RateLimitedLog(0, seconds(60)), coupler::Error);
}
