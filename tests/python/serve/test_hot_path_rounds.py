"""Several controllers through the C++ hot path: once their simulation runs, their rounds are stepped and
answered in C++, counted as on the Python path."""

from __future__ import annotations

import logging
import threading

import pytest

from coupler.scenes import load_scene
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.messages import (
    ControlMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from served_loop import Served

ROUNDS = 20


def control(robot: str, value: float, steps: int = 0) -> ControlMessage:
    return ControlMessage(objects={robot: ObjectControl(values=[value] * 7)}, steps=steps)


@pytest.mark.parametrize("trace", [False, True])
def test_two_controllers_rounds_are_stepped_by_the_hot_path_and_counted(tmp_path, caplog, trace):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    sim = SimulationServer(load_scene("two_arms", None), controllers=2)
    sim.trace = trace
    stop = threading.Event()
    address = f"ipc://{tmp_path}/rounds"
    with NativeResponder(address, sim) as responder:
        loop = LockstepLoop(responder)
        thread = threading.Thread(target=loop.run, args=(stop, 0.05))
        thread.start()
        try:
            with Client(address, timeout=5.0) as left, Client(address, timeout=5.0) as right:
                assert isinstance(left.request(HandshakeInitMessage()), HandshakeMessage)
                assert isinstance(right.request(HandshakeInitMessage()), HandshakeMessage)
                dt = sim.handshake.time_step
                for k in range(1, ROUNDS + 1):
                    # The right arm asks for two steps: the round takes the fewest asked for.
                    left.send(control("left_arm", 0.5))
                    right.send(control("right_arm", 0.5, steps=2))
                    left_state, right_state = left.receive(), right.receive()
                    assert isinstance(left_state, SensorMessage)
                    assert left_state == right_state
                    assert left_state.simulated_time == pytest.approx(k * dt)
        finally:
            stop.set()
            thread.join(timeout=10)
    assert loop.hot_path is not None and loop.hot_path.controls >= 2 * (ROUNDS - 2)
    assert sim.stats.steps == ROUNDS and sim.stats.controls == 2 * ROUNDS
    assert sim.stats.requests == 2 * ROUNDS + 2
    # Traced, every Control is logged as it is taken to wait for its round.
    held = [r.getMessage() for r in caplog.records if r.getMessage() == "answered HELD"]
    assert len(held) == (2 * ROUNDS if trace else 0)


def test_paced_a_reader_is_answered_in_cpp_while_a_rounds_long_held_answers_wait(make_address):
    with Served(load_scene("two_arms", 0.1), make_address("ipc"), clock=RunClock(1.0), controllers=2) as served, \
            Client(served.responder.endpoint, timeout=5.0) as left, \
            Client(served.responder.endpoint, timeout=5.0) as right, \
            Client(served.responder.endpoint, timeout=1.0) as reader:
        left.request(HandshakeInitMessage())
        right.request(HandshakeInitMessage())
        # The first round claims the robots (decided in Python, served in C++ as the next).
        left.send(control("left_arm", 0.5))
        right.send(control("right_arm", 0.5))
        first, _ = left.receive(), right.receive()
        left.send(control("left_arm", 0.5))
        right.send(control("right_arm", 0.5))  # one step of 0.1 s: the round's answers are held 0.1 s
        read = reader.request(SensorRequestMessage())
        while read.simulated_time == first.simulated_time:  # until the server has stepped the round
            read = reader.request(SensorRequestMessage())
        held = left.wait(0) is False
        answers = left.receive(), right.receive()
    assert held
    assert read.simulated_time == answers[0].simulated_time == answers[1].simulated_time == pytest.approx(0.2)
    assert served.loop.hot_path.controls == 4 and served.loop.hot_path.reads >= 1
