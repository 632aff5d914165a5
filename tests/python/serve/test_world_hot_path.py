"""A lone controller's Controls for every world answered in C++ (`coupler.serve.world_hot_path`) as MuJoCo steps
each world (through the socket and through shared memory), counted, everything else handed back to Python, and a
server that still serves others and stops."""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest
import zmq

pytest.importorskip("mujoco")

from coupler import _native  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.scenes import load_scene  # noqa: E402
from coupler.serve.busy_grace import GRACE  # noqa: E402
from coupler.serve.shared_images import SharedImages  # noqa: E402
from coupler.serve.world_hot_path import WorldHotPath  # noqa: E402
from coupler.wire.codec import decode, encode  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images  # noqa: E402
from mocap_scenes import MOCAP_PENDULUM  # noqa: E402
from served_loop import ServedBatch, ask, req_socket  # noqa: E402
from world_pendulums import PENDULUM, MujocoPendulums  # noqa: E402

WORLDS = 4


class ServedWorlds(ServedBatch):
    """WORLDS copies of `scene` (the arm scene unless given), stepped on 2 threads, with a shared-memory ring for the
    answers that ask for it."""

    def __init__(self, address: str, scene: MujocoSimulation | None = None, **options) -> None:
        super().__init__(load_scene("arm", None) if scene is None else scene, address, WORLDS, threads=2, **options)
        self.responder.shared_images = SharedImages(1 << 16, min_bytes=64)


def random_controls(count: int, seed: int) -> list[tuple[bytes, tuple | None]]:
    """Mostly plain Controls for every world of pendulums (some clamped, some through shared memory), with resets
    (to the start state or to states given), values not finite or beyond what MuJoCo takes, a wrong size, resets
    that cannot be, long ones and ones that step no world (resetting some, or none) among them; each with what it
    asks (None: to be refused)."""
    rng = np.random.default_rng(seed)
    plan: list[tuple[bytes, tuple | None]] = []
    for _ in range(count):
        controls = rng.uniform(-3.0, 3.0, (WORLDS, 1))
        steps = int(rng.choice([0, 1, 3, 100]))
        kind = rng.integers(14)
        resets: list[int] = []
        states: dict[str, np.ndarray] = {}
        refused = kind in (1, 5)
        if kind == 0:
            resets = sorted(rng.choice(WORLDS, 2, replace=False).tolist())
        elif kind == 1:
            controls[rng.integers(WORLDS), 0] = rng.choice([math.nan, math.inf, 1e11, 1e300])
        elif kind == 2:
            steps = 101  # stepped in chunks
        elif kind == 3:
            plan.append((encode_world_control(WORLDS, np.zeros(2)), None))
            continue
        elif kind == 4:
            resets = sorted(rng.choice(WORLDS, int(rng.integers(1, WORLDS + 1)), replace=False).tolist())
            states = {"qpos": rng.uniform(-0.5, 0.5, len(resets))}
            if rng.integers(2):
                states["qvel"] = rng.uniform(-1.0, 1.0, len(resets))
        elif kind == 5:
            resets = [3, 1] if rng.integers(2) else [1]
            states = {} if len(resets) == 2 else {"qpos": np.zeros(2)}
        elif kind == 6:
            controls = None  # steps no world: resets those it lists
            resets = sorted(rng.choice(WORLDS, int(rng.integers(1, WORLDS + 1)), replace=False).tolist())
            if rng.integers(2):
                states = {"qpos": rng.uniform(-0.5, 0.5, len(resets))}
        elif kind == 7:
            controls = None  # steps no world and resets none: reads them all
        frame = encode_world_control(WORLDS, controls, steps, resets, shared_memory=bool(rng.integers(2)), **states)
        plan.append((frame, None if refused else (controls, steps, resets, states)))
    return plan


def test_random_controls_for_every_world_are_answered_in_cpp_as_mujoco_steps_each_world(make_address):
    direct = MujocoPendulums(WORLDS)
    plan = random_controls(150, seed=7)
    with ServedWorlds(make_address("ipc"), scene=MujocoSimulation.from_xml_string(PENDULUM)) as hot, \
            req_socket(hot.responder.endpoint) as driver:
        ring = _native.SharedRingReader(decode(ask(driver, encode(HandshakeInitMessage()))).shared_memory)
        through_ring = 0
        for frame, asked in plan:
            answer = ask(driver, frame)
            if asked is None:
                assert isinstance(decode(answer), ErrorMessage)
                continue
            read = _native.read_world_sensors(answer)
            through_ring += read is not None and read[5] is not None
            _, times, data, _, _ = read_world_answer_with_images(answer, ring)
            controls, steps, resets, states = asked
            np.testing.assert_array_equal(np.array(data).reshape(WORLDS, 2),
                                          direct.run(controls, steps, resets, **states))
            assert np.array(times).tolist() == direct.times()
    assert isinstance(hot.loop.hot_path, WorldHotPath)
    stepped = sum(asked is not None for _, asked in plan)
    assert hot.loop.hot_path.controls > stepped // 2  # most of them never reached Python
    assert hot.loop.hot_path.resets == sum(len(asked[2]) for _, asked in plan if asked is not None) > 0
    assert (hot.sim.stats.controls, hot.sim.stats.errors_sent) == (stepped, len(plan) - stepped)
    assert hot.worlds.clamped_values > 0
    assert through_ring > 0


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[ServedWorlds]:
    address = f"ipc://{tmp_path_factory.mktemp('hotworlds') / 'server.sock'}"
    with ServedWorlds(address, session_timeout=60.0) as served:
        yield served


def test_reads_and_newcomers_are_served_while_the_controller_steps_the_worlds_in_cpp(served):
    width = served.worlds.control_width
    step = encode_world_control(WORLDS, np.zeros((WORLDS, width)))
    with req_socket(served.responder.endpoint) as driver, req_socket(served.responder.endpoint) as reader, \
            req_socket(served.responder.endpoint) as newcomer:
        ask(driver, encode(HandshakeInitMessage()))
        ask(driver, step)  # starts the run
        before = served.loop.hot_path.controls
        reads, refusals = [], []
        for k in range(30):
            ask(driver, step)
            if k % 10 == 5:
                reads.append(decode(ask(reader, encode(SensorRequestMessage()))))
                refusals.append(decode(ask(newcomer, step)))
        reads.append(decode(ask(reader, encode(SensorRequestMessage()))))  # handed back: C++ reports its counts
        stepped = served.loop.hot_path.controls - before
    assert stepped >= 25
    assert all(isinstance(read, SensorMessage) for read in reads)
    assert all(isinstance(r, ErrorMessage) and r.code == ErrorCode.SERVER_BUSY for r in refusals)


def test_the_control_that_starts_the_run_after_a_handshake_or_a_reset_is_answered_in_cpp(served):
    step = encode_world_control(WORLDS, np.full((WORLDS, served.worlds.control_width), 0.1))
    with req_socket(served.responder.endpoint) as driver:
        before = served.loop.hot_path.controls
        ask(driver, encode(HandshakeInitMessage()))
        assert isinstance(decode(ask(driver, step)), SensorMessage)
        assert isinstance(decode(ask(driver, encode(ResetMessage()))), ResetMessage)  # handed back: counts reported
        after_handshake = served.loop.hot_path.controls - before
        assert not served.sim.running
        assert isinstance(decode(ask(driver, step)), SensorMessage)
        ask(driver, encode(SensorRequestMessage()))
        after_reset = served.loop.hot_path.controls - before
    assert (after_handshake, after_reset) == (1, 2)
    assert served.sim.running


def test_a_server_whose_controller_keeps_stepping_the_worlds_in_cpp_stops_promptly(make_address):
    hot = ServedWorlds(make_address("ipc"))
    with hot, req_socket(hot.responder.endpoint) as driver:
        width = hot.worlds.control_width
        step = encode_world_control(WORLDS, np.zeros((WORLDS, width)))
        ask(driver, encode(HandshakeInitMessage()))
        driving = threading.Event()

        def drive() -> None:
            driver.rcvtimeo = 1000
            with contextlib.suppress(zmq.ZMQError):
                while True:
                    ask(driver, step)
                    driving.set()

        thread = threading.Thread(target=drive, daemon=True)
        thread.start()
        assert driving.wait(5.0)
        time.sleep(0.2)
        started = time.monotonic()
        hot.stop.set()
        hot.thread.join(timeout=5)
        assert time.monotonic() - started < 1.0  # it returns to Python at least every 0.1 s
        assert hot.loop.hot_path.controls > 0
        thread.join(timeout=5)


def test_a_control_the_hot_path_hands_back_is_refused_by_python_naming_its_problem(served):
    width = served.worlds.control_width
    controls = np.zeros((WORLDS, width))
    controls[2, 1] = math.nan
    with req_socket(served.responder.endpoint) as driver:
        ask(driver, encode(HandshakeInitMessage()))
        answer = decode(ask(driver, encode_world_control(WORLDS, controls)))
    assert isinstance(answer, ErrorMessage) and "number 1 of world 2 is nan" in answer.text


def test_a_newcomers_control_read_before_the_goodbye_that_frees_the_worlds_is_taken(served):
    step = encode_world_control(WORLDS, np.zeros((WORLDS, served.worlds.control_width)))
    goodbye = encode(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving"))
    grace = served.responder.busy_grace
    grace.grace = 1.0  # far longer than the goodbye's lag, whatever the machine's load
    try:
        with req_socket(served.responder.endpoint) as leaving, req_socket(served.responder.endpoint) as newcomer:
            ask(leaving, encode(HandshakeInitMessage()))
            assert isinstance(decode(ask(leaving, step)), SensorMessage)
            refused = served.sim.stats.refused_busy
            newcomer.send(step)
            time.sleep(0.05)  # the server reads the newcomer's Control well before the goodbye is even sent
            leaving.send(goodbye)
            assert isinstance(decode(newcomer.recv()), SensorMessage)
            newcomer.send(goodbye)  # no answer: the next test's controller finds the place free
    finally:
        grace.grace = GRACE
    assert served.sim.stats.refused_busy == refused


def test_a_mocap_body_moved_in_cpp_and_its_zero_quaternion_refused_by_python_naming_it(make_address):
    with ServedWorlds(make_address("ipc"),
                      scene=MujocoSimulation.from_xml_string(MOCAP_PENDULUM)) as hot, \
            req_socket(hot.responder.endpoint) as driver:
        target = next(o for o in hot.worlds.first.flat.controls.objects if o.name == "target")
        controls = np.zeros((WORLDS, hot.worlds.control_width))
        controls[:, target.offset : target.offset + 7] = [0.3, 0.0, 0.6, 1.0, 0.0, 0.0, 0.0]
        ask(driver, encode(HandshakeInitMessage()))
        for _ in range(5):
            assert isinstance(decode(ask(driver, encode_world_control(WORLDS, controls))), SensorMessage)
        controls[3, target.offset + 3] = 0.0  # world 3's quaternion: all zero
        refused = decode(ask(driver, encode_world_control(WORLDS, controls)))
        served = hot.loop.hot_path.controls  # counted once C++ hands the refused one back
    assert served >= 4
    assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.CONTROL_MISMATCH
    assert "mocap body 'target' in world 3" in refused.text
