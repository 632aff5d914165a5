"""Peer-triggered log lines are bounded per kind and interval."""

import logging

import pytest

from coupler.serve.rate_limited_log import RateLimitedLog


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def lines(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def test_at_most_burst_lines_of_a_kind_are_logged_per_interval(caplog, clock):
    limited = RateLimitedLog(logging.getLogger("t.burst"), burst=3, interval=60.0, clock=clock)
    with caplog.at_level(logging.INFO):
        for k in range(1000):
            limited.warning("bad frame: %s", k)
    assert lines(caplog) == ["bad frame: 0", "bad frame: 1", "bad frame: 2"]


def test_kinds_are_counted_apart(caplog, clock):
    limited = RateLimitedLog(logging.getLogger("t.kinds"), burst=1, clock=clock)
    with caplog.at_level(logging.INFO):
        limited.warning("bad frame: %s", 1)
        limited.warning("refused %s: %s", "Control", "x")
        limited.warning("bad frame: %s", 2)
    assert lines(caplog) == ["bad frame: 1", "refused Control: x"]


def test_after_the_interval_the_next_line_says_how_many_were_left_out(caplog, clock):
    limited = RateLimitedLog(logging.getLogger("t.after"), burst=1, interval=60.0, clock=clock)
    with caplog.at_level(logging.INFO):
        for k in range(5):
            limited.warning("bad frame: %s", k)
        clock.now += 60.0
        limited.warning("bad frame: %s", "late")
    assert lines(caplog) == [
        "bad frame: 0",
        "4 more like the next line were left out in the last 60 s",
        "bad frame: late",
    ]


def test_lines_below_the_logger_level_use_no_budget(caplog, clock):
    limited = RateLimitedLog(logging.getLogger("t.level"), burst=1, clock=clock)
    with caplog.at_level(logging.WARNING):
        limited.info("refused %s", "busy")
        limited.warning("refused %s", "mismatch")
    assert lines(caplog) == ["refused mismatch"]
