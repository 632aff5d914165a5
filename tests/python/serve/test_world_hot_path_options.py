"""Options of a batched server served by the world hot path (`coupler.serve.world_hot_path`) as by any server:
traced (--trace, --trace-sizes), paced, stopped at --stop-after, C++ answers the Controls for every world and logs
every exchange. A Control for every world that Python serves is stepped by the same C++ object, and without a loop
by the batch's own, every step at once. The answers are MuJoCo's own steps of each world."""

from __future__ import annotations

import contextlib
import logging
import re
import time

import numpy as np
import pytest

pytest.importorskip("mujoco")


from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.mujoco.world_batch import WorldBatch  # noqa: E402
from coupler.serve.batched_worlds import BatchedResponder, WorldsSimulation  # noqa: E402
from coupler.serve.run_clock import RunClock  # noqa: E402
from coupler.serve.simulation_server import SimulationServer  # noqa: E402
from coupler.serve.world_hot_path import WorldHotPath  # noqa: E402
from coupler.wire.codec import decode, encode  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images  # noqa: E402
from served_loop import ServedBatch, ask, req_socket  # noqa: E402
from world_pendulums import PENDULUM, TIME_STEP, MujocoPendulums  # noqa: E402

WORLDS = 3


def served_pendulums(address: str, worlds: int = WORLDS, **options) -> ServedBatch:
    """`worlds` pendulums served by a lockstep loop in a thread, traced or paced as asked (stopping at `stop_after`
    simulated seconds), with every world's qpos and qvel in its answers."""
    return ServedBatch(MujocoSimulation.from_xml_string(PENDULUM), address, worlds, session_timeout=60.0, **options)


def exchanges() -> list[tuple[np.ndarray | None, int, list[int]]]:
    """Controls for every world (values, steps, worlds reset) whose frame sizes change now and then, one resetting
    worlds without values, which steps none."""
    rng = np.random.default_rng(3)
    plan: list[tuple[np.ndarray | None, int, list[int]]] = []
    for k in range(12):
        resets = [1] if k in (4, 9) else [0, 2] if k in (6, 8) else []
        controls = rng.uniform(-1.5, 1.5, (WORLDS, 1))
        plan.append((None if k == 8 else controls, int(rng.choice([1, 3])), resets))
    return plan


def drive(served: ServedBatch, read_after: int = 5) -> tuple[list[np.ndarray], list[tuple[bytes, bytes]]]:
    """Handshake, drive the plan's Controls (a read among them, after `read_after`), read at the end; every
    Control's answer's (qpos, qvel) per world, and every exchange's request and answer frames."""
    states, exchanged = [], []
    with req_socket(served.responder.endpoint) as driver:
        def exchange(frame: bytes) -> bytes:
            exchanged.append((frame, ask(driver, frame)))
            return exchanged[-1][1]

        exchange(encode(HandshakeInitMessage()))
        for k, (controls, steps, resets) in enumerate(exchanges()):
            answer = exchange(encode_world_control(WORLDS, controls, steps, resets))
            _, _, data, _, _ = read_world_answer_with_images(answer, None)
            states.append(np.array(data).reshape(WORLDS, 2))
            if k == read_after:
                exchange(encode(SensorRequestMessage()))
        exchange(encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
    return states, exchanged


def logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The exchanges logged, the server's shared-memory file (named in its handshake) left out."""
    return [re.sub(r"path='[^']*'", "path=...", r.getMessage()) for r in caplog.records
            if r.getMessage().startswith(("received", "answered"))]


def traced(exchanged: list[tuple[bytes, bytes]]) -> list[str]:
    """What --trace logs of these exchanges: each request and its answer as read."""
    return [re.sub(r"path='[^']*'", "path=...", line) for request, answer in exchanged
            for line in (f"received {decode(request)!r}", f"answered {decode(answer)!r}")]


def sizes_traced(exchanged: list[tuple[bytes, bytes]]) -> list[str]:
    """What --trace-sizes logs of these exchanges: their frame sizes, each time they differ from the last logged."""
    lines: list[str] = []
    for request, answer in exchanged:
        line = f"received {len(request)} bytes, sent {len(answer)} bytes"
        if not lines or lines[-1] != line:
            lines.append(line)
    return lines


def mujoco_states() -> list[np.ndarray]:
    direct = MujocoPendulums(WORLDS)
    return [direct.run(controls, steps, resets) for controls, steps, resets in exchanges()]


@pytest.mark.parametrize("option", ["trace", "trace_sizes"])
def test_traced_controls_for_every_world_are_answered_in_cpp_and_every_exchange_logged(make_address, caplog,
                                                                                        option):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    with served_pendulums(make_address("ipc"), **{option: True}) as served:
        states, exchanged = drive(served)
    for ours, theirs in zip(states, mujoco_states(), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert isinstance(served.loop.hot_path, WorldHotPath)
    assert served.loop.hot_path.controls == len(exchanges())  # every Control answered in C++
    expected = traced(exchanged) if option == "trace" else sizes_traced(exchanged)
    assert logged(caplog) == expected
    assert len(expected) >= (2 * (len(exchanges()) + 3) if option == "trace" else 4)


def paced_exchange(served: ServedBatch) -> tuple[list[np.ndarray], float, bool]:
    """A paced run: a Control that starts it, then one of 20 steps (0.2 s) during whose hold a reader reads.
    Every Control's answer's (qpos, qvel) per world, how long both took (from before the first was sent: the
    clock is anchored when the first is taken, so lateness anywhere only lengthens it), and whether the read was
    answered while the second waited."""
    plan = [(np.full((WORLDS, 1), 0.5), 1), (np.array([[1.0], [-1.0], [0.25]]), 20)]
    states = []
    with req_socket(served.responder.endpoint) as driver, req_socket(served.responder.endpoint) as reader:
        ask(driver, encode(HandshakeInitMessage()))
        started = time.monotonic()
        answer = ask(driver, encode_world_control(WORLDS, *plan[0]))
        states.append(np.array(read_world_answer_with_images(answer, None)[2]).reshape(WORLDS, 2))
        driver.send(encode_world_control(WORLDS, *plan[1]))
        time.sleep(0.02)
        ask(reader, encode(SensorRequestMessage()))
        read_while_held = not driver.poll(0)
        answer = driver.recv()
        took = time.monotonic() - started
        states.append(np.array(read_world_answer_with_images(answer, None)[2]).reshape(WORLDS, 2))
        ask(reader, encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
    direct = MujocoPendulums(WORLDS)
    for (controls, steps), state in zip(plan, states, strict=True):
        np.testing.assert_array_equal(state, direct.run(controls, steps, []))
    return states, took, read_while_held


def test_paced_answers_for_every_world_wait_in_cpp_for_their_time_while_reads_are_answered_and_logged_in_order(
        make_address, caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    with served_pendulums(make_address("ipc"), trace=True, clock=RunClock(1.0)) as served:
        _, took, read_while_held = paced_exchange(served)
    assert took >= 0.21 - 0.002  # the answers waited for their time: 21 steps of 10 ms
    assert read_while_held
    assert isinstance(served.loop.hot_path, WorldHotPath)
    assert served.loop.hot_path.controls == 2  # both Controls answered in C++, the first starting the run
    # The held answer is logged with its Control, before the read answered while it waited.
    kinds = [line.split("(")[0] for line in logged(caplog)]
    assert kinds == ["received HandshakeInitMessage", "answered HandshakeMessage"] + 2 * [
        "received ControlMessage", "answered SensorMessage"] + 2 * [
        "received SensorRequestMessage", "answered SensorMessage"]


def test_a_long_control_for_every_world_is_stepped_in_cpp_in_chunks_ends_where_mujoco_ends_and_is_logged_held(
        make_address, caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    plan = [(np.array([[0.5], [-1.0], [1.5]]), 250, [1]), (np.array([[-0.3], [0.2], [0.9]]), 101, [])]
    direct = MujocoPendulums(WORLDS)
    with served_pendulums(make_address("ipc"), trace=True) as served, \
            req_socket(served.responder.endpoint) as driver:
        ask(driver, encode(HandshakeInitMessage()))
        for controls, steps, resets in plan:
            answer = ask(driver, encode_world_control(WORLDS, controls, steps, resets))
            state = np.array(read_world_answer_with_images(answer, None)[2]).reshape(WORLDS, 2)
            np.testing.assert_array_equal(state, direct.run(controls, steps, resets))
        ask(driver, encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
    assert served.loop.hot_path.controls == len(plan)  # in C++, chunks and all
    assert "answered HELD" in logged(caplog)


def test_readers_and_newcomers_are_served_between_the_chunks_cpp_steps_and_a_stop_ends_the_control(make_address):
    steps = 100_000
    worlds = 64  # seconds of stepping, far longer than the requests below take however fast the machine steps
    with served_pendulums(make_address("ipc"), worlds) as served, req_socket(served.responder.endpoint) as driver, \
            req_socket(served.responder.endpoint) as other:
        ask(driver, encode(HandshakeInitMessage()))
        driver.send(encode_world_control(worlds, np.zeros((worlds, 1)), steps))
        time.sleep(0.05)
        reads = [decode(ask(other, encode(SensorRequestMessage()))) for _ in range(3)]
        busy = decode(ask(other, encode(HandshakeInitMessage())))
        served.stop.set()
        ended = decode(driver.recv())
    assert all(isinstance(read, SensorMessage) for read in reads)
    assert 0 < reads[0].simulated_time <= reads[-1].simulated_time < steps * TIME_STEP
    assert isinstance(busy, ErrorMessage) and busy.code == ErrorCode.SERVER_BUSY and "being stepped" in busy.text
    assert isinstance(ended, ErrorMessage) and ended.code == ErrorCode.SESSION_ENDED
    assert f"of the {steps} steps" in ended.text
    assert served.loop.hot_path.controls == 1  # stepped in C++ alone


def start_long_control(driver, worlds: int, steps: int, in_cpp: bool = True) -> None:
    """Send a Control for every world of `steps` steps, taken in chunks: by the C++ world hot path's run (after a
    first Control, it waits in C++ for the controller's next one), or without a first by the loop itself."""
    ask(driver, encode(HandshakeInitMessage()))
    if in_cpp:
        ask(driver, encode_world_control(worlds, np.zeros((worlds, 1)), 1))
        time.sleep(0.15)
    driver.send(encode_world_control(worlds, np.zeros((worlds, 1)), steps))


def test_every_read_waiting_after_a_chunk_of_a_long_control_is_answered_before_its_next_chunk(make_address):
    steps, worlds, readers = 100_000, 64, 5
    with served_pendulums(make_address("ipc"), worlds) as served, req_socket(served.responder.endpoint) as driver, \
            contextlib.ExitStack() as stack:
        others = [stack.enter_context(req_socket(served.responder.endpoint)) for _ in range(readers)]
        start_long_control(driver, worlds, steps)
        time.sleep(0.05)
        for other in others:
            other.send(encode(SensorRequestMessage()))
        times = [decode(other.recv()).simulated_time for other in others]
        served.stop.set()
        decode(driver.recv())
    assert served.loop.hot_path.controls == 2  # both stepped by the C++ world hot path's run
    # Read after the same chunk, or after two when they arrived across a chunk's end; a read a chunk would have shown
    # five states, the last waiting for four chunks.
    assert 0 < min(times) and len(set(times)) <= 2, times


@pytest.mark.parametrize("in_cpp", [True, False], ids=["taken-by-the-hot-path", "taken-by-the-loop"])
def test_reads_between_the_chunks_of_a_long_control_for_every_world_see_each_chunks_state(make_address, in_cpp):
    steps, worlds = 100_000, 64
    with served_pendulums(make_address("ipc"), worlds) as served, req_socket(served.responder.endpoint) as driver, \
            req_socket(served.responder.endpoint) as reader:
        start_long_control(driver, worlds, steps, in_cpp)
        times = []
        for _ in range(3):
            time.sleep(0.05)  # more than a chunk
            times.append(decode(ask(reader, encode(SensorRequestMessage()))).simulated_time)
        served.stop.set()
        decode(driver.recv())
    assert 0 < times[0] < times[1] < times[2] < steps * TIME_STEP, times


def test_a_long_control_for_every_world_stops_in_cpp_at_stop_after(make_address):
    with served_pendulums(make_address("ipc"), stop_after=0.5) as served, \
            req_socket(served.responder.endpoint) as driver:
        ask(driver, encode(HandshakeInitMessage()))
        answer = decode(ask(driver, encode_world_control(WORLDS, np.full((WORLDS, 1), 0.5), 1000)))
        served.thread.join(timeout=5)
        assert not served.thread.is_alive()  # the loop ended there
    assert served.loop.hot_path.controls == 1
    # Stepped to the step reaching 0.5 s, as MuJoCo steps it.
    direct = MujocoPendulums(WORLDS).run(np.full((WORLDS, 1), 0.5), 50, [])
    np.testing.assert_array_equal([[w.data.qpos[0], w.data.qvel[0]] for w in served.worlds.worlds], direct)
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SESSION_ENDED
    assert "after 50 of the 1000 steps" in answer.text and "--stop-after 0.5 s reached" in answer.text


def test_paced_a_long_control_for_every_world_that_starts_the_run_waits_for_its_own_steps_after_them(make_address):
    steps = 200  # 2 simulated seconds: 0.1 s of wall clock at 20 times real time
    direct = MujocoPendulums(WORLDS)
    with served_pendulums(make_address("ipc"), clock=RunClock(20.0)) as served, \
            req_socket(served.responder.endpoint) as driver:
        ask(driver, encode(HandshakeInitMessage()))
        took = []
        started = time.monotonic()
        for controls in (np.full((WORLDS, 1), 0.5), np.full((WORLDS, 1), -0.5)):
            answer = ask(driver, encode_world_control(WORLDS, controls, steps))
            took.append(time.monotonic() - started)
            state = np.array(read_world_answer_with_images(answer, None)[2]).reshape(WORLDS, 2)
            np.testing.assert_array_equal(state, direct.run(controls, steps, []))
        ask(driver, encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
    # The first waited for its own steps after them, which started the clock; the second for its time on it.
    assert took[0] >= 0.1 - 0.002 and took[1] >= 0.2 - 0.002
    assert served.loop.hot_path.controls == 2


def test_a_value_just_within_what_mujoco_takes_is_applied_and_stepped_by_the_world_hot_path(make_address):
    # Just below MuJoCo's 1e10: the worlds' scatters, whose check is the one check, take it.
    huge = 9_999_999_995.0
    controls = np.array([[huge], [-huge], [0.5]])
    direct = MujocoPendulums(WORLDS)
    with served_pendulums(make_address("ipc")) as served, req_socket(served.responder.endpoint) as driver:
        ask(driver, encode(HandshakeInitMessage()))
        for steps in (3, 150):  # the second in chunks
            answer = ask(driver, encode_world_control(WORLDS, controls, steps))
            state = np.array(read_world_answer_with_images(answer, None)[2]).reshape(WORLDS, 2)
            np.testing.assert_array_equal(state, direct.run(controls, steps, []))
        ask(driver, encode(SensorRequestMessage()))  # handed back: C++ has reported every Control
        hot_path = served.loop.hot_path
        assert isinstance(hot_path, WorldHotPath) and hot_path.controls == 2
    assert served.worlds.clamped_values == 2 * 2  # two worlds' values clamped by each Control


def test_without_a_loop_a_control_for_every_world_of_many_steps_is_stepped_at_once_by_the_batchs_cpp_object(
        make_address):
    steps = 150  # more than a loop takes in one chunk: no loop, no chunks
    controls = np.array([[0.5], [-1.0], [1.5]])
    batch = WorldBatch(MujocoSimulation.from_xml_string(PENDULUM), WORLDS, data_names=("qpos", "qvel"))
    responder = BatchedResponder(make_address("ipc"), SimulationServer(WorldsSimulation(batch)))
    try:
        with req_socket(responder.endpoint) as driver:
            driver.send(encode_world_control(WORLDS, controls, steps))
            request = responder.receive(5.0)
            assert request is not None
            responder.send(request, responder.respond(request))
            answer = driver.recv()
    finally:
        responder.close()
        batch.close()
    state = np.array(read_world_answer_with_images(answer, None)[2]).reshape(WORLDS, 2)
    np.testing.assert_array_equal(state, MujocoPendulums(WORLDS).run(controls, steps, []))
    assert responder.world_step.controls == 1 and not responder.world_step.chunks
