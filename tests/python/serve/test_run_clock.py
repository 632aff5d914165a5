"""RunClock paces a run against the wall clock, and its sleeps end on time."""

import time

import pytest

from coupler.serve.run_clock import RunClock
from coupler.serve.timer_slack import PRECISE_SLACK_NS, timer_slack_ns


def test_an_unpaced_clock_is_never_early_or_late():
    clock = RunClock(None)
    clock.anchor(0.0)
    assert clock.due_in(1000.0) == 0.0
    clock.delay_until(1000.0, late_after=0.001)
    assert clock.deadlines_missed == 0


def test_a_step_due_later_is_waited_for():
    clock = RunClock(1.0)
    clock.anchor(0.0)
    started = time.monotonic()
    time.sleep(clock.delay_until(0.02, late_after=0.001))  # as a loop holds an answer
    assert time.monotonic() - started >= 0.02
    assert clock.deadlines_missed == 0


def test_a_step_more_than_late_after_past_its_slot_is_a_missed_deadline():
    clock = RunClock(1.0)
    clock.anchor(0.0)
    time.sleep(0.01)
    clock.delay_until(0.001, late_after=0.005)  # 9 ms late
    clock.delay_until(0.008, late_after=0.005)  # about 2 ms late: within the allowance
    assert clock.deadlines_missed == 1


def test_speed_scales_wall_time():
    clock = RunClock(2.0)
    clock.anchor(10.0)
    assert clock.due_in(10.2) == pytest.approx(0.1, abs=0.01)


def test_a_paced_clock_tightens_the_timer_slack():
    RunClock(1.0)
    assert timer_slack_ns() == PRECISE_SLACK_NS


def test_speed_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        RunClock(0.0)
