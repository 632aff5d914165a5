"""A free run through the C++ hot path: it steps on the wall clock, answers a controller's Controls (which take
no steps) and everyone's reads in C++, and counts as the Python loop counts; when its simulation fails, it stands
still and serves on."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterator

import pytest

from coupler.scenes import load_scene
from coupler.serve.free_run_loop import FreeRunLoop
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
from failing_stepper import BrokenScene

STOP_AFTER = 0.2  # seconds of simulated time: 100 steps of the arm's 2 ms


@contextlib.contextmanager
def _free_run(sim: SimulationServer, address: str,
              stop_after: float | None = None) -> Iterator[tuple[FreeRunLoop, threading.Thread]]:
    """`sim` served at `address` in a free run in real time, on a thread of its own; stopped on leaving."""
    stop = threading.Event()
    with NativeResponder(address, sim) as responder:
        loop = FreeRunLoop(responder, RunClock(1.0), stop_after)
        thread = threading.Thread(target=loop.run, args=(stop, 0.05))
        thread.start()
        try:
            yield loop, thread
        finally:
            stop.set()
            thread.join(timeout=10)


def test_a_free_run_steps_on_the_wall_clock_and_answers_controls_and_reads_in_cpp(tmp_path):
    sim = SimulationServer(load_scene("arm", None), lockstep=False)
    address = f"ipc://{tmp_path}/free"
    with _free_run(sim, address, STOP_AFTER) as (loop, thread):
        with Client(address, timeout=5.0) as controller, Client(address, timeout=5.0) as reader:
            handshake = controller.request(HandshakeInitMessage())
            assert isinstance(handshake, HandshakeMessage)
            dt = handshake.time_step
            control = ControlMessage(objects={
                name: ObjectControl(values=[0.1] * len(description.controls))
                for name, description in handshake.objects.items() if description.controls})
            times = []
            started = time.monotonic()
            while thread.is_alive():
                try:
                    answer = controller.request(control, timeout=0.5)
                    read = reader.request(SensorRequestMessage(), timeout=0.5)
                except Exception:
                    break  # the run ended at STOP_AFTER
                assert isinstance(answer, SensorMessage) and isinstance(read, SensorMessage)
                assert read.simulated_time >= answer.simulated_time  # the clock only runs forward
                times.append(answer.simulated_time)
                time.sleep(0.004)  # slower than the 2 ms step: some steps run on the last Control
            wall = time.monotonic() - started
            thread.join(timeout=5)
    assert not thread.is_alive()
    assert loop.hot_path is not None and loop.hot_path.controls > 0 and loop.hot_path.reads > 0
    assert times == sorted(times) and times[-1] > 0
    # Controls take no steps: each step is the clock's, one every time step.
    assert sim.stats.steps == round(STOP_AFTER / dt)
    assert 0 < sim.stats.steps_without_control < sim.stats.steps
    assert wall >= (STOP_AFTER - times[0]) * 0.98
    assert sim.stats.controls >= len(times)
    assert sim.stats.sensor_requests >= len(times)
    assert sim.stats.steps * dt == pytest.approx(STOP_AFTER)


def test_a_traced_free_run_logs_every_control_the_hot_path_answers_and_every_read(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    sim = SimulationServer(load_scene("static", None), lockstep=False)
    sim.trace = True
    address = f"ipc://{tmp_path}/traced"
    with _free_run(sim, address) as (loop, _):
        with Client(address, timeout=5.0) as controller:
            handshake = controller.request(HandshakeInitMessage())
            control = ControlMessage(objects={
                name: ObjectControl(values=[0.0] * len(description.controls))
                for name, description in handshake.objects.items() if description.controls})
            exchanges = []
            for _ in range(10):
                exchanges.append((control, controller.request(control)))
                read = SensorRequestMessage()
                exchanges.append((read, controller.request(read)))
    assert loop.hot_path is not None and loop.hot_path.controls >= 9
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith(("received", "answered"))]
    assert logged[-40:] == [line for request, answer in exchanges
                            for line in (f"received {request!r}", f"answered {answer!r}")]


def test_a_free_run_whose_steps_fail_stands_still_logs_why_and_serves_on(tmp_path, caplog):
    caplog.set_level(logging.ERROR, logger="coupler.serve.hot_path")
    sim = SimulationServer(BrokenScene(), lockstep=False)
    address = f"ipc://{tmp_path}/broken"
    with _free_run(sim, address) as (_, thread):
        with Client(address, timeout=2.0) as controller, Client(address, timeout=2.0) as reader:
            controller.request(HandshakeInitMessage())
            control = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)})
            first = controller.request(control)  # takes no step: answered, and the run starts
            deadline = time.monotonic() + 2.0
            while not caplog.records and time.monotonic() < deadline:
                time.sleep(0.01)  # the clock's first step fails
            read = reader.request(SensorRequestMessage())
            again = controller.request(control)
            serving = thread.is_alive()
    assert serving and not thread.is_alive()
    assert isinstance(first, SensorMessage) and isinstance(read, SensorMessage) and isinstance(again, SensorMessage)
    assert caplog.records[0].getMessage() == ("the simulation failed while stepping, and stands still until a "
                                              "Control starts it again: RuntimeError: the motor is on fire")
    assert sim.stats.steps == 0
