"""RoundTripStats (the C++ class, bound): percentiles within 1 %, durations in float seconds."""

import pytest

from coupler.controller.round_trip_stats import RoundTripStats


def test_percentiles_of_round_trips_are_within_one_percent_of_the_exact_ones():
    stats = RoundTripStats()
    for us in range(1, 1001):
        stats.add_round_trip(us * 1e-6)
    assert stats.count == 1000
    assert stats.percentile(0.5) == pytest.approx(500.5e-6, rel=0.01)
    assert stats.percentile(0.99) == pytest.approx(990e-6, rel=0.01)
    assert stats.send_to_reply == pytest.approx(0.5005)


def test_a_percentile_never_leaves_the_range_of_round_trips_seen():
    stats = RoundTripStats()
    stats.add_round_trip(123e-6)
    assert stats.percentile(0.0) == stats.percentile(1.0) == 123e-6


def test_round_trips_outside_the_binned_range_are_counted_at_its_ends():
    stats = RoundTripStats()
    stats.add_round_trip(0.0)
    stats.add_round_trip(5000.0)
    assert stats.count == 2
    assert (stats.percentile(0.0), stats.percentile(1.0)) == (0.0, 5000.0)


def test_clear_empties_the_statistics():
    stats = RoundTripStats()
    stats.add_round_trip(1e-3)
    stats.add_blocked(1.0)
    stats.clear()
    assert (stats.count, stats.percentile(0.5), stats.blocked) == (0, 0.0, 0.0)
    assert "round trips:             0" in stats.report(1.0, polling=False)
