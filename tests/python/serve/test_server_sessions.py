"""Who may drive, through a serving loop: controllers on
sockets of their own (each a peer) against a LockstepLoop run in a thread."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from coupler.transport.client import Client
from peers import address_for, coupler_server, run
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation import Simulation
from coupler.serve.simulation_server import SimulationServer
from coupler.scenes import load_scene

GOODBYE = ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving")


@contextlib.contextmanager
def serving(simulation: Simulation, address: str, clock: RunClock | None = None,
            stop_after: float | None = None, **options) -> Iterator[SimulationServer]:
    """A lockstep server on `address`, its loop in a thread, until the block ends (or the loop does).

    `sim.stop` (an Event) stops the loop; `sim.loop` is its thread.
    """
    sim = SimulationServer(simulation, **options)
    sim.stop = threading.Event()
    with NativeResponder(address, sim) as responder:
        loop = threading.Thread(target=LockstepLoop(responder, clock, stop_after).run,
                                args=(sim.stop, 0.05))
        sim.loop = loop
        loop.start()
        try:
            yield sim
        finally:
            sim.stop.set()
            loop.join(timeout=10)
    assert not loop.is_alive()


def ipc(tmp_path: Path) -> str:
    return f"ipc://{tmp_path / 's.sock'}"


def control(objects: dict[str, int], value: float = 0.0) -> ControlMessage:
    return ControlMessage(objects={name: ObjectControl([value] * width) for name, width in objects.items()})


ARM = {"arm": 7}


def test_a_second_controller_is_refused_as_busy_and_the_first_goes_on_undisturbed(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("static", None), address) as sim, \
            Client(address, timeout=5.0) as first, Client(address, timeout=5.0) as second:
        assert isinstance(first.request(HandshakeInitMessage()), HandshakeMessage)
        times = [first.request(control(ARM, 0.25)).simulated_time]
        for request in (HandshakeInitMessage(), control(ARM, 1.0), control({"robot9": 1})):
            refused = second.request(request)
            assert isinstance(refused, ErrorMessage)
            assert refused.code == ErrorCode.SERVER_BUSY
            assert "busy" in refused.text and "retry" in refused.text
            answer = first.request(control(ARM, 0.25))
            times.append(answer.simulated_time)
            assert answer.objects["arm"].angles == [0.25] * 7
        dt = sim.handshake.time_step
        assert times == pytest.approx([dt, 2 * dt, 3 * dt, 4 * dt])
    assert sim.stats.refused_busy == 3


def test_sensor_requests_of_others_are_served_while_busy_and_change_nothing(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("static", None), address) as sim, \
            Client(address, timeout=5.0) as first, Client(address, timeout=5.0) as reader:
        driven = first.request(control(ARM, 0.5))
        for _ in range(3):
            read = reader.request(SensorRequestMessage())
            assert isinstance(read, SensorMessage)
            assert read.simulated_time == driven.simulated_time
            assert read.objects["arm"].angles == [0.5] * 7
        assert first.request(control(ARM, 0.5)).simulated_time == pytest.approx(2 * sim.handshake.time_step)
    assert sim.stats.refused_busy == 0


def test_a_lapsed_lease_lets_a_second_controller_take_over(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("static", None), address, session_timeout=0.3) as sim, \
            Client(address, timeout=5.0) as first, Client(address, timeout=5.0) as second:
        first.request(control(ARM))
        assert second.request(HandshakeInitMessage()).code == ErrorCode.SERVER_BUSY
        time.sleep(0.4)
        assert isinstance(second.request(HandshakeInitMessage()), HandshakeMessage)
        assert second.request(control(ARM)).simulated_time == pytest.approx(2 * sim.handshake.time_step)
        assert first.request(control(ARM)).code == ErrorCode.SERVER_BUSY


# ---- several controllers: the two_arms scene, robots left_arm and right_arm

LEFT, RIGHT = {"left_arm": 7}, {"right_arm": 7}


@pytest.fixture(scope="module")
def two_arms() -> Simulation:
    return load_scene("two_arms", None)


def handshake_both(left: Client, right: Client) -> None:
    assert isinstance(left.request(HandshakeInitMessage()), HandshakeMessage)
    assert isinstance(right.request(HandshakeInitMessage()), HandshakeMessage)


@contextlib.contextmanager
def two_controllers(simulation: Simulation, tmp_path: Path, clock: RunClock | None = None,
                    **options) -> Iterator[tuple[SimulationServer, Client, Client]]:
    """A server for two controllers over `simulation` from its initial state, and both controllers, handshaken."""
    simulation.reset()
    address = ipc(tmp_path)
    with serving(simulation, address, clock, controllers=2, **options) as sim, \
            Client(address, timeout=5.0) as left, Client(address, timeout=5.0) as right:
        handshake_both(left, right)
        yield sim, left, right


def test_two_controllers_step_only_when_both_controls_arrived_and_see_the_same_time(two_arms, tmp_path):
    with two_controllers(two_arms, tmp_path) as (sim, left, right):
        dt = sim.handshake.time_step
        for k in range(1, 4):
            left.send(control(LEFT, 0.1))
            assert not left.wait(0.3), "answered before the other controller's Control arrived"
            right.send(control(RIGHT, -0.1))
            left_state, right_state = left.receive(), right.receive()
            assert left_state.simulated_time == right_state.simulated_time == pytest.approx(k * dt)
            assert left_state == right_state
    assert sim.stats.steps == 3 and sim.stats.controls == 6


def test_a_robot_another_controller_drives_is_refused_naming_it(two_arms, tmp_path):
    with two_controllers(two_arms, tmp_path) as (sim, left, right):
        drive_together(left, right, 1)  # each claims its arm
        refused = right.request(control({**LEFT, **RIGHT}))
        assert refused.code == ErrorCode.SERVER_BUSY
        assert "robot 'left_arm' is driven by another controller" in refused.text
        assert drive_together(left, right, 1) == [pytest.approx(2 * sim.handshake.time_step)]


def test_a_controller_that_leaves_no_longer_holds_the_other_back(two_arms, tmp_path):
    with two_controllers(two_arms, tmp_path) as (sim, left, right):
        left.send(control(LEFT))
        assert not left.wait(0.2)
        right.send(GOODBYE)
        assert left.receive().simulated_time == pytest.approx(sim.handshake.time_step)


def test_a_controller_whose_lease_lapses_no_longer_holds_the_other_back(two_arms, tmp_path):
    with two_controllers(two_arms, tmp_path, session_timeout=0.3) as (sim, left, right):
        sent = time.monotonic()
        answer = left.request(control(LEFT), timeout=3.0)
        assert answer.simulated_time == pytest.approx(sim.handshake.time_step)
        assert time.monotonic() - sent >= 0.2  # held until right's lease lapsed
        # Back, it is told it was dropped rather than handed a state it did not step to.
        refused = right.request(control(RIGHT))
        assert refused.code == ErrorCode.SESSION_ENDED and "HandshakeInit" in refused.text
        # After a new handshake it drives again, in step with the other.
        assert isinstance(right.request(HandshakeInitMessage()), HandshakeMessage)
        right.send(control(RIGHT))
        left.send(control(LEFT))
        assert left.receive().simulated_time == right.receive().simulated_time == pytest.approx(2 * sim.handshake.time_step)


def test_stopping_answers_a_control_still_waiting_for_the_other_controller(two_arms, tmp_path):
    with two_controllers(two_arms, tmp_path) as (sim, left, right):
        left.send(control(LEFT))
        assert not left.wait(0.2)
        sim.stop.set()
        answer = left.receive()
    assert isinstance(answer, ErrorMessage)
    assert answer.code == ErrorCode.SESSION_ENDED and "server stopped" in answer.text


def drive_together(left: Client, right: Client, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        left.send(control(LEFT))
        right.send(control(RIGHT))
        times.append(left.receive().simulated_time)
        assert right.receive().simulated_time == times[-1]
    return times


def test_two_controllers_in_real_time_never_run_ahead_of_the_wall_clock(two_arms, tmp_path):
    with two_controllers(two_arms, tmp_path, RunClock(1.0)) as (sim, left, right):
        first = drive_together(left, right, 1)[0]
        started = time.monotonic()
        last = drive_together(left, right, 100)[-1]
        wall = time.monotonic() - started
    assert wall >= (last - first) * 0.98


def test_two_controllers_stop_after_that_much_simulated_time(two_arms, tmp_path):
    with two_controllers(two_arms, tmp_path, stop_after=0.01) as (sim, left, right):
        times = drive_together(left, right, 5)  # 2 ms steps: the fifth reaches 0.01 s
        sim.loop.join(timeout=5)
        assert not sim.loop.is_alive()
    assert times[-1] == pytest.approx(0.01)


# ---- the demo server's flags


def test_demo_server_with_two_controllers_steps_once_both_sent_and_counts_refusals(tmp_path):
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", "static", "--controllers", "2") as server:
        with Client(address, timeout=5.0) as arm, Client(address, timeout=5.0) as cart, \
                Client(address, timeout=5.0) as third:
            arm.request(HandshakeInitMessage())
            cart.request(HandshakeInitMessage())
            assert third.request(HandshakeInitMessage()).code == ErrorCode.SERVER_BUSY
            arm.send(control(ARM))
            assert not arm.wait(0.2)
            cart.send(control({"cart": 4}))
            assert arm.receive().simulated_time == cart.receive().simulated_time == pytest.approx(0.001)
        server.send_signal(signal.SIGINT)
        code = server.wait(timeout=10)
        out = server.output()
    assert code == 0, out
    assert "steps:                 1" in out
    assert "controls received:     2" in out
    assert "refused, busy:         1" in out


def test_demo_server_refuses_several_controllers_in_free_mode():
    result = run([sys.executable, "-m", "demo.server", "--scene", "static", "--controllers", "2", "--mode", "free"])
    assert result.returncode == 2
    assert "--controllers above 1 needs --mode lockstep" in result.stdout


LONG_PACED = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=3000)  # 3 s of the static scene's steps


def test_readers_and_newcomers_are_answered_while_a_long_paced_control_waits(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("static", None), address, RunClock(1.0)) as sim, \
            Client(address, timeout=5.0) as driver, Client(address, timeout=1.0) as reader, \
            Client(address, timeout=1.0) as newcomer:
        driver.request(HandshakeInitMessage())
        driver.send(LONG_PACED)
        time.sleep(0.2)
        # Both are answered long before the driver's answer is due (their timeouts are 1 s, the wait 3 s).
        assert isinstance(reader.request(SensorRequestMessage()), SensorMessage)
        assert newcomer.request(HandshakeInitMessage()).code == ErrorCode.SERVER_BUSY
        answer = driver.receive()
        assert isinstance(answer, SensorMessage) and answer.simulated_time == pytest.approx(3.0)
        assert sim.stats.steps == 3000


def test_stopping_during_a_long_paced_control_ends_the_loop_at_once(tmp_path):
    address = ipc(tmp_path)
    with serving(load_scene("static", None), address, RunClock(1.0)) as sim, \
            Client(address, timeout=5.0) as driver:
        driver.request(HandshakeInitMessage())
        driver.send(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}, steps=60_000))
        time.sleep(0.2)
        sim.stop.set()
        sim.loop.join(timeout=1.0)
        assert not sim.loop.is_alive()
