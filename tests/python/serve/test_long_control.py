"""A Control of many steps, unpaced, is stepped in chunks: readers, newcomers and a stop never wait for it."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from coupler.limits import MAX_STEPS_PER_CONTROL
from coupler.scenes import load_scene
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.long_control import LONG_CONTROL_STEPS
from coupler.serve.native_responder import NativeResponder
from coupler.serve.simulation import Simulation
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from peers import coupler_server

pytest.importorskip("mujoco")

ARM_STEP = 0.002  # the arm scene's time step
LONGEST = MAX_STEPS_PER_CONTROL  # the cap on steps: the longest Control there is
# About 2 s of stepping on an idle machine; on a loaded one (a busy CI) many times that. Readers wait 0.5 s at most.
DRIVER_TIMEOUT = 120.0


def arm_control(steps: int) -> ControlMessage:
    return ControlMessage(objects={"arm": ObjectControl([0.1] * 7)}, steps=steps)


@contextlib.contextmanager
def serving(simulation: Simulation, address: str, **options) -> Iterator[SimulationServer]:
    """An unpaced lockstep server on `address`, its loop in a thread, until the block ends."""
    sim = SimulationServer(simulation, **options)
    stop = threading.Event()
    with NativeResponder(address, sim) as responder:
        loop = threading.Thread(target=LockstepLoop(responder).run, args=(stop, 0.05))
        loop.start()
        try:
            yield sim
        finally:
            stop.set()
            loop.join(timeout=10)
    assert not loop.is_alive()


def ipc(tmp_path: Path) -> str:
    return f"ipc://{tmp_path / 's.sock'}"


def pending(client: Client) -> bool:
    """True while `client`'s answer has not come."""
    return not client.wait(0)


def test_readers_are_answered_within_half_a_second_during_a_control_of_the_most_steps(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("arm"), address), Client(address, timeout=DRIVER_TIMEOUT) as driver, \
            Client(address, timeout=0.5) as reader:
        driver.request(HandshakeInitMessage())
        driver.send(arm_control(LONGEST))
        time.sleep(0.1)
        times = []
        while pending(driver) and len(times) < 5:
            state = reader.request(SensorRequestMessage())  # a TimeoutError after 0.5 s fails the test
            times.append(state.simulated_time)
        assert times, "the long Control ended before a reader asked: nothing was tested"
        # Each read saw the state of the last chunk: part of the way there, never the end.
        assert all(0 < t < LONGEST * ARM_STEP for t in times)
        answer = driver.receive()
        assert isinstance(answer, SensorMessage) and answer.simulated_time == pytest.approx(LONGEST * ARM_STEP)


def test_newcomers_are_told_busy_within_half_a_second_during_a_control_of_the_most_steps(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("arm"), address, controllers=2), Client(address, timeout=DRIVER_TIMEOUT) as driver, \
            Client(address, timeout=0.5) as newcomer:
        # Two controllers' places, one taken: only the long Control keeps the newcomer out.
        driver.request(HandshakeInitMessage())
        driver.send(arm_control(LONGEST))
        time.sleep(0.1)
        assert pending(driver)
        for request in (HandshakeInitMessage(), arm_control(1)):
            answer = newcomer.request(request)
            assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SERVER_BUSY, answer
            assert "being stepped" in answer.text
        assert isinstance(driver.receive(), SensorMessage)


def test_a_control_stepped_in_chunks_ends_in_the_state_of_one_taken_at_once(tmp_path):
    steps = 20 * LONG_CONTROL_STEPS
    alone = load_scene("arm")
    alone.apply(arm_control(steps))
    alone.step(steps)
    expected = alone.sensors()
    address = ipc(tmp_path)
    with serving(load_scene("arm"), address) as sim, Client(address, timeout=DRIVER_TIMEOUT) as driver, \
            Client(address, timeout=5.0) as reader:
        driver.request(HandshakeInitMessage())
        driver.send(arm_control(steps))
        while pending(driver):
            reader.request(SensorRequestMessage())  # reads between the chunks must not change the steps
        answer = driver.receive()
    # Counted once the loop has stopped: the hot path, which takes it, reports when it returns to Python.
    assert sim.stats.steps == steps and sim.stats.steps_without_control == 0
    assert answer == expected


def test_two_controllers_asking_for_many_steps_are_stepped_in_chunks_and_answered_together(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("two_arms"), address, controllers=2), \
            Client(address, timeout=DRIVER_TIMEOUT) as left, Client(address, timeout=DRIVER_TIMEOUT) as right, \
            Client(address, timeout=0.5) as reader:
        left.request(HandshakeInitMessage())
        right.request(HandshakeInitMessage())
        left.send(ControlMessage(objects={"left_arm": ObjectControl([0.0] * 7)}, steps=LONGEST))
        right.send(ControlMessage(objects={"right_arm": ObjectControl([0.0] * 7)}, steps=LONGEST))
        time.sleep(0.1)
        assert pending(left) and pending(right)
        assert isinstance(reader.request(SensorRequestMessage()), SensorMessage)
        assert left.receive().simulated_time == right.receive().simulated_time


def test_sigterm_ends_serving_within_a_second_during_a_control_of_the_most_steps(tmp_path):
    """The loop stops between two chunks and answers the Control: within a second of SIGTERM.

    The process then exits (summary, interpreter teardown), which on a loaded machine takes a second of its own.
    """
    address = ipc(tmp_path)
    flags = ["--scene", "arm"]
    with coupler_server(address, *flags) as server:
        with Client(address, timeout=DRIVER_TIMEOUT) as driver:
            driver.request(HandshakeInitMessage())
            driver.send(arm_control(LONGEST))
            time.sleep(0.2)
            assert pending(driver)
            server.send_signal(signal.SIGTERM)
            answer = driver.receive(timeout=1.0)
            code = server.wait(timeout=10.0)
        out = server.output()
    assert code == 0, out
    # The controller is told its Control was cut short, never handed a state it did not ask for.
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SESSION_ENDED, answer
    assert f"of the {LONGEST} steps" in answer.text


def test_the_controllers_own_request_to_drive_while_its_control_is_stepped_is_refused_as_unexpected(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("arm"), address) as sim, Client(address, timeout=5.0) as driver:
        driver.request(HandshakeInitMessage())
        driver.send(arm_control(LONGEST))
        time.sleep(0.1)
        # The client may send again (its first answer is then dropped); the server must not step twice at once.
        answer = driver.request(arm_control(1))
        assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.UNEXPECTED_MESSAGE, answer
        assert "still being stepped" in answer.text
        deadline = time.monotonic() + DRIVER_TIMEOUT
        while sim.long_control is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sim.stats.steps == LONGEST
