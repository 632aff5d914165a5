"""One clock through a recording of several runs: each run, from a Reset, follows the one before one step after
its last state; a recording of one run is its simulated time itself."""

from __future__ import annotations

import pytest

from coupler.record.run_timeline import RunTimeline


def _positions(times: list[float]) -> list[float]:
    clock = RunTimeline()
    return [clock.position(t) for t in times]


def test_one_run_is_its_simulated_time():
    assert _positions([0.0, 0.1, 0.2, 0.2, 0.35]) == [0.0, 0.1, 0.2, 0.2, 0.35]


def test_a_run_from_a_reset_follows_the_run_before_one_step_after_its_last_state():
    assert _positions([0.0, 0.1, 0.2, 0.0, 0.1]) == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])


def test_a_reset_to_a_later_keyframe_time_still_follows_the_run_before():
    assert _positions([1.0, 1.5, 2.0, 1.2, 1.7]) == pytest.approx([1.0, 1.5, 2.0, 2.5, 3.0])


def test_every_run_follows_the_one_before():
    positions = _positions([0.0, 0.01, 0.02] * 3)
    assert positions == pytest.approx([0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08])
