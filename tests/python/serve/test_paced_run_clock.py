"""A paced lockstep loop lends its own clock to the C++ hot path: C++ anchors it and counts its missed deadlines."""

from __future__ import annotations

from coupler.scenes import load_scene
from coupler.serve.run_clock import RunClock
from coupler.transport.client import Client
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, ObjectControl, SensorMessage
from served_loop import Served

STILL = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=1)


def test_the_control_that_starts_a_paced_run_anchors_the_loops_own_clock(make_address):
    clock = RunClock(1.0)
    assert clock.due_in(0.0) < -3600.0  # never anchored: time 0 was due at the clock's epoch
    with Served(load_scene("static", None), make_address("ipc"), clock=clock) as served, \
            Client(served.address, timeout=5.0) as driver:
        driver.request(HandshakeInitMessage())
        assert isinstance(driver.request(STILL), SensorMessage)
    assert served.loop.hot_path.controls == 1  # taken in C++ (counted once its run returned)
    # Anchored at simulated time 0 when the Control came: that was due a moment ago.
    assert -1.0 < clock.due_in(0.0) <= 0.0


def test_deadlines_the_hot_path_misses_are_counted_on_the_loops_clock(make_address):
    # A thousand times real time: every answer is due a thousandth of a step after the last, so the answers fall
    # further behind with each round trip and soon count as late.
    clock = RunClock(1000.0)
    with Served(load_scene("static", None), make_address("ipc"), clock=clock) as served, \
            Client(served.address, timeout=5.0) as driver:
        driver.request(HandshakeInitMessage())
        for _ in range(300):
            driver.request(STILL)
    in_cpp = served.loop.hot_path.controls  # counted once their runs returned
    assert in_cpp > 250
    # More were late than the loop answered itself: the hot path's are on the clock.
    assert clock.deadlines_missed > 300 - in_cpp
