"""The Control that admits a controller: Python decides who drives, and the C++ hot path applies, steps and answers
it as every other Control of that controller (`coupler.serve.hot_path`), counted and traced as ever; a controller
admitted to a round that asks again while its Control waits for the others' is told so, and so is one whose Control
waits when the server stops."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import pytest

from coupler.scenes import load_scene
from coupler.serve.run_clock import RunClock
from coupler.transport.client import Client
from coupler.wire.codec import decode, encode
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ObjectControl,
    SensorMessage,
)
from served_loop import Served, ask, req_socket

GOODBYE = ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving")
ARM = ControlMessage(objects={"arm": ObjectControl([0.1] * 7)})


def control(robot: str, value: float) -> ControlMessage:
    return ControlMessage(objects={robot: ObjectControl(values=[value] * 7)})


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the server did not get there in time"
        time.sleep(0.005)


def test_a_newcomers_first_control_after_the_controller_left_is_answered_in_cpp_and_traced(make_address, caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    with Served(load_scene("static", None), make_address("ipc"), trace=True) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as driver, \
            Client(hot.responder.endpoint, timeout=5.0) as newcomer:
        driver.request(HandshakeInitMessage())
        for _ in range(3):
            driver.request(ARM)
        driver.send(GOODBYE)
        wait_until(lambda: not hot.sim.sessions.active)
        # It never shakes hands: its first Control admits it.
        answers = [newcomer.request(ARM) for _ in range(2)]
    dt = hot.sim.handshake.time_step
    assert [type(a) for a in answers] == [SensorMessage, SensorMessage]
    assert answers[0].simulated_time == pytest.approx(4 * dt)
    assert hot.loop.hot_path.controls == 5  # the driver's three and the newcomer's two, its first too
    assert hot.sim.stats.controls == 5 and hot.sim.stats.steps == 5
    assert hot.sim.starts == 2  # alone, the newcomer starts the run afresh, as after a handshake
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith(("received", "answered"))]
    assert logged[-4:] == [f"received {ARM!r}", f"answered {answers[0]!r}",
                           f"received {ARM!r}", f"answered {answers[1]!r}"]


def test_paced_a_newcomers_first_control_starts_the_clock_in_cpp_and_waits_for_its_own_step(make_address):
    clock = RunClock(1.0)
    with Served(load_scene("static", 0.05), make_address("ipc"), clock=clock) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as newcomer:
        started = time.monotonic()
        first = newcomer.request(ARM)  # admits it, starts the run and its clock
        waited = time.monotonic() - started
        second = newcomer.request(ARM)
        both = time.monotonic() - started
    assert hot.loop.hot_path.controls == 2 and hot.sim.starts == 1
    assert second.simulated_time - first.simulated_time == pytest.approx(0.05)
    assert waited >= 0.05 - 0.002 and both >= 0.1 - 0.002  # each answer waited for its step's time


def test_a_newcomer_joining_a_lone_controller_of_two_is_held_and_answered_with_the_round_in_cpp(make_address):
    with Served(load_scene("two_arms", None), make_address("ipc"), controllers=2) as served, \
            Client(served.responder.endpoint, timeout=5.0) as left, \
            Client(served.responder.endpoint, timeout=5.0) as right:
        left.request(HandshakeInitMessage())
        alone = [left.request(control("left_arm", 0.5)) for _ in range(3)]  # rounds of one
        # The newcomer never shakes hands: its first Control admits it and claims its arm.
        right.send(control("right_arm", 0.5))
        wait_until(lambda: len(served.sim.sessions.active) == 2)
        left.send(control("left_arm", 0.5))
        joined = right.receive(), left.receive()
        robots = sorted(sorted(c.robots) for c in served.sim.sessions.active.values())
    dt = served.sim.handshake.time_step
    assert alone[-1].simulated_time == pytest.approx(3 * dt)
    assert isinstance(joined[0], SensorMessage) and joined[0] == joined[1]
    assert joined[0].simulated_time == pytest.approx(4 * dt)
    assert served.loop.hot_path.controls == 5  # the newcomer's first Control too
    assert served.sim.stats.controls == 5 and served.sim.stats.steps == 4
    assert robots == [["left_arm"], ["right_arm"]]  # claimed in Python, with the admission


def test_a_newcomers_first_control_of_another_encoding_is_served_by_the_hot_path_and_counted_once(make_address):
    with Served(load_scene("static", None), make_address("ipc")) as hot, \
            req_socket(hot.responder.endpoint) as newcomer:
        # An unknown field: not the plain encoding, which the hot path reads straight from the frame; admitted in
        # Python, it is read by the full decoder in C++.
        answer = decode(ask(newcomer, encode(ARM) + b"\x18\x05"))
    assert isinstance(answer, SensorMessage) and answer.simulated_time == pytest.approx(hot.sim.handshake.time_step)
    assert hot.loop.hot_path.controls == 1
    assert hot.sim.stats.requests == hot.sim.stats.controls == 1


def _both_driving(served: Served, left: Client, right: Client) -> None:
    """`left` and `right` drive the two arms together: a round of `left`'s alone, then one of both."""
    left.request(control("left_arm", 0.5))
    right.send(control("right_arm", 0.5))  # joins the next round
    wait_until(lambda: len(served.sim.sessions.active) == 2)
    left.send(control("left_arm", 0.5))
    left.receive(), right.receive()


def test_a_controller_asking_again_while_its_control_waits_for_the_round_is_told_so_and_the_round_goes_on(
        make_address):
    with Served(load_scene("two_arms", None), make_address("ipc"), controllers=2) as served, \
            Client(served.responder.endpoint, timeout=5.0) as left, \
            Client(served.responder.endpoint, timeout=5.0) as right:
        _both_driving(served, left, right)
        with pytest.raises(TimeoutError):
            left.request(control("left_arm", 0.25), timeout=0.2)  # waits for right's
        again = left.request(control("left_arm", 0.75))  # a client that timed out asks again
        right.send(control("right_arm", 0.5))
        joined = right.receive()
    assert isinstance(again, ErrorMessage) and again.code == ErrorCode.UNEXPECTED_MESSAGE
    assert again.text == ("unexpected message: this controller's previous Control still waits for the other "
                          "controllers' Controls of the same step")
    # The round the first Control waited in goes on: right's completes it.
    assert isinstance(joined, SensorMessage)
    assert joined.simulated_time == pytest.approx(3 * served.sim.handshake.time_step)


def test_a_control_waiting_for_its_round_when_the_server_stops_is_told_the_step_was_not_taken(make_address):
    with Served(load_scene("two_arms", None), make_address("ipc"), controllers=2) as served, \
            Client(served.responder.endpoint, timeout=5.0) as left, \
            Client(served.responder.endpoint, timeout=5.0) as right:
        _both_driving(served, left, right)
        left.send(control("left_arm", 0.25))  # waits for right's
        wait_until(lambda: served.sim.sessions.waiting())
        served.stop.set()
        stopped = left.receive()
        steps = served.sim.stats.steps
    assert isinstance(stopped, ErrorMessage) and stopped.code == ErrorCode.SESSION_ENDED
    assert stopped.text == ("server stopped: the step this Control waited for (the other controllers' Controls) was "
                            "not taken")
    assert steps == 2
