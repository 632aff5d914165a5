"""A Control for every world of many steps is stepped in chunks, as on the single-world path: readers, newcomers
and a stop never wait for it."""

from __future__ import annotations

import signal
import time

import numpy as np
import pytest

pytest.importorskip("mujoco")

from coupler.controller.session import Session  # noqa: E402
from coupler.controller.world_session import WorldSession  # noqa: E402
from coupler.serve.long_control import LONG_CONTROL_STEPS  # noqa: E402
from coupler.transport.client import Client  # noqa: E402
from coupler.wire.errors import RemoteError  # noqa: E402
from coupler.wire.messages import ErrorCode, ErrorMessage, HandshakeInitMessage, SensorMessage, SensorRequestMessage  # noqa: E402
from peers import coupler_server  # noqa: E402

WORLDS = 16
ARM_STEP = 0.002
LONGEST = 100_000  # 16 arm worlds: tens of seconds of stepping, cut short here by SIGTERM


def test_a_long_control_for_every_world_is_stepped_in_chunks_answering_readers_newcomers_and_a_stop(tmp_path):
    address = f"ipc://{tmp_path / 's.sock'}"
    with coupler_server(address, "--scene", "arm", "--worlds", str(WORLDS), "--threads", "2") as process, \
            Session(address, timeout=5.0) as session, Client(address, timeout=0.5) as other:
        worlds = WorldSession(session)
        controls = np.zeros((WORLDS, worlds.control_width))
        # Chunked too when short: every step taken, the reset world restarted once and never stepped.
        worlds.send(controls, steps=3 * LONG_CONTROL_STEPS, resets=[1])
        _, times = worlds.receive()
        assert times[0] == pytest.approx(3 * LONG_CONTROL_STEPS * ARM_STEP) and times[1] == 0.0
        worlds.send(controls, steps=LONGEST)
        time.sleep(0.2)
        read = []
        for _ in range(3):
            # A reader waits at most a chunk (a TimeoutError after 0.5 s fails the test) and sees part of the way.
            state = other.request(SensorRequestMessage())
            assert isinstance(state, SensorMessage)
            read.append(state.simulated_time)
        assert 0 < read[0] <= read[-1] < LONGEST * ARM_STEP
        busy = other.request(HandshakeInitMessage())
        assert isinstance(busy, ErrorMessage) and busy.code == ErrorCode.SERVER_BUSY and "being stepped" in busy.text
        process.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        session.client.timeout = 1.0
        with pytest.raises(RemoteError, match=f"of the {LONGEST} steps") as raised:
            worlds.receive()
        assert time.monotonic() - stopped < 1.0
        assert raised.value.code == ErrorCode.SESSION_ENDED
        assert process.wait(timeout=10.0) == 0


def test_an_ordinary_control_of_many_steps_for_world_0_is_stepped_in_chunks_answering_readers_meanwhile(tmp_path):
    from coupler.scenes import load_scene
    from coupler.wire.messages import ControlMessage, ObjectControl

    steps = 20 * LONG_CONTROL_STEPS
    control = ControlMessage(objects={"arm": ObjectControl([0.1] * 7)}, steps=steps)
    alone = load_scene("arm")
    alone.apply(control)
    alone.step(steps)
    address = f"ipc://{tmp_path / 's.sock'}"
    with coupler_server(address, "--scene", "arm", "--worlds", "4", "--threads", "2"), \
            Client(address, timeout=60.0) as driver, Client(address, timeout=0.5) as reader:
        driver.request(HandshakeInitMessage())
        driver.send(control)
        read = []
        while not driver.wait(0):
            state = reader.request(SensorRequestMessage())  # a TimeoutError after 0.5 s fails the test
            assert isinstance(state, SensorMessage)
            read.append(state.simulated_time)
        answer = driver.receive()
    assert answer == alone.sensors()
    assert read and all(t <= steps * ARM_STEP for t in read)
