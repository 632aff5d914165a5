"""Several controllers through the C++ hot path: once their simulation runs, their rounds are stepped and
answered in C++, counted as on the Python path."""

from __future__ import annotations

import logging
import threading

import pytest

from coupler.scenes import load_scene
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, HandshakeMessage, ObjectControl, SensorMessage

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
