// RoundTripStats: percentiles within 1 % in memory that does not grow.

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include <coupler/controller/round_trip_stats.hpp>

using coupler::RoundTripStats;
using Seconds = RoundTripStats::Duration;

TEST_CASE("percentiles of round trips are within one percent of the exact ones", "[stats]") {
  RoundTripStats stats;
  for (int us = 1; us <= 1000; ++us) stats.add_round_trip(Seconds(us * 1e-6));
  CHECK(stats.count() == 1000);
  CHECK(stats.percentile(0.5) == Approx(500.5e-6).epsilon(0.01));
  CHECK(stats.percentile(0.99) == Approx(990e-6).epsilon(0.01));
  CHECK(stats.send_to_reply().count() == Approx(500500e-6));
}

TEST_CASE("a percentile never leaves the range of round trips seen", "[stats]") {
  RoundTripStats stats;
  stats.add_round_trip(Seconds(123e-6));
  CHECK(stats.percentile(0.0) == 123e-6);
  CHECK(stats.percentile(1.0) == 123e-6);
}

TEST_CASE("round trips outside the binned range are counted at its ends", "[stats]") {
  RoundTripStats stats;
  stats.add_round_trip(Seconds(0.0));
  stats.add_round_trip(Seconds(5000.0));
  CHECK(stats.count() == 2);
  CHECK(stats.percentile(0.0) == 0.0);
  CHECK(stats.percentile(1.0) == 5000.0);
}

TEST_CASE("empty statistics report zero and clear empties them", "[stats]") {
  RoundTripStats stats;
  CHECK(stats.percentile(0.5) == 0.0);
  stats.add_round_trip(Seconds(1e-3));
  stats.add_blocked(Seconds(1e-3));
  stats.clear();
  CHECK(stats.count() == 0);
  CHECK(stats.percentile(0.5) == 0.0);
  CHECK(stats.blocked().count() == 0.0);
  CHECK(stats.report(Seconds(1.0), false).find("round trips:             0") != std::string::npos);
}
