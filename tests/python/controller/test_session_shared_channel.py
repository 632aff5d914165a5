"""Session(shared_channel=True): plain Controls and reads through the server's shared channel, images still
through its ring, everything through the socket where there is no channel.

One `coupler serve --scene arm` on an ipc:// address serves the tests that need a real server, each leaving it
free for the next controller.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from coupler.controller.session import Session
from coupler.wire.codec import decode
from coupler.wire.errors import RemoteError, TimeoutError
from coupler.wire.messages import ErrorCode, HandshakeInitMessage, SensorMessage
from peers import coupler_server, free_tcp_address
from scripted_server import ScriptedServer

STEPS = 10
TIMEOUT = 5.0
FIRST_IMAGE_TIMEOUT = 60.0
CAMERA = "overview"


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    address = f"ipc://{tmp_path_factory.mktemp('session-channel') / 'coupler.sock'}"
    with coupler_server(address, "--scene", "arm", "--camera", f"{CAMERA}=64x64"):
        # The server makes its OpenGL context for the first image asked for: seconds on a loaded machine, which the
        # tests' timeouts are not about.
        with Session(address, timeout=FIRST_IMAGE_TIMEOUT) as session:
            session.sensors(images={CAMERA: "rgb"})
        yield address


def _trajectory(address: str, shared_channel: bool) -> list[SensorMessage]:
    with Session(address, timeout=TIMEOUT, reset=True, shared_channel=shared_channel) as session:
        controls = session.controls()
        states = []
        for k in range(STEPS):
            for name in session.handshake.objects:
                if session.handshake.objects[name].controls:
                    controls[name][:] = 0.2 * np.sin(0.5 * k + np.arange(len(controls[name])))
            states.append(session.step(controls).message)
        states.append(session.sensors().message)
    return states


def test_a_session_asking_for_the_channel_leases_it_at_an_ipc_address(address: str) -> None:
    with Session(address, timeout=TIMEOUT, shared_channel=True) as session:
        assert session.shared_channel


def test_a_session_takes_no_channel_unless_asked(address: str) -> None:
    with Session(address, timeout=TIMEOUT) as session:
        assert not session.shared_channel


def test_steps_and_reads_through_the_channel_answer_as_through_the_socket(address: str) -> None:
    through_channel = _trajectory(address, shared_channel=True)
    through_socket = _trajectory(address, shared_channel=False)
    assert through_channel == through_socket


def test_requests_for_images_go_through_the_channel_and_their_images_through_the_ring(address: str) -> None:
    with Session(address, timeout=TIMEOUT, shared_channel=True) as session:
        controls = session.controls()
        session.step(controls)
        readings = session.step(controls, images={CAMERA: ("rgb", "depth")})
        assert readings.images[CAMERA].rgb.shape == (64, 64, 3)
        assert readings.images[CAMERA].depth.shape == (64, 64)
        assert all(image.shared is not None for image in readings.message.images)
        pictured = session.sensors(images={CAMERA: "rgb"})
        assert pictured.time == readings.time
        after = session.step(controls)
        assert after.time > readings.time


def test_images_through_the_channel_are_those_through_the_socket(address: str) -> None:
    pictures = []
    for shared_channel in (True, False):
        with Session(address, timeout=TIMEOUT, reset=True, shared_channel=shared_channel) as session:
            controls = session.controls()
            session.step(controls)
            readings = session.step(controls, images={CAMERA: "depth"})
            pictures.append((readings.time, np.array(readings.images[CAMERA].depth)))
    (time_a, depth_a), (time_b, depth_b) = pictures
    assert time_a == time_b and np.array_equal(depth_a, depth_b)


def test_a_second_session_asking_for_a_leased_channel_is_refused(address: str) -> None:
    with Session(address, timeout=TIMEOUT, shared_channel=True) as holder:
        with pytest.raises(RemoteError, match="leased to another controller") as refused:
            Session(address, timeout=TIMEOUT, shared_channel=True)
        assert refused.value.code == ErrorCode.SERVER_BUSY
        assert holder.shared_channel
        holder.step(holder.controls())


def test_a_server_without_a_channel_is_used_through_the_socket() -> None:
    server = ScriptedServer([SensorMessage(simulated_time=0.5)])
    try:
        with Session(server.address, timeout=TIMEOUT, shared_channel=True) as session:
            assert not session.shared_channel
            assert session.sensors().time == 0.5
    finally:
        server.close()
    assert decode(server.requests[0]) == HandshakeInitMessage(shared_channel=True)


def test_over_tcp_the_channel_is_not_asked_for() -> None:
    server = ScriptedServer([], address=free_tcp_address())
    try:
        with Session(server.address, timeout=TIMEOUT, shared_channel=True) as session:
            assert not session.shared_channel
    finally:
        server.close()
    assert decode(server.requests[0]) == HandshakeInitMessage(shared_channel=False)


def test_a_killed_server_times_a_step_through_the_channel_out(tmp_path: Path) -> None:
    address = f"ipc://{tmp_path / 'killed.sock'}"
    with coupler_server(address, "--scene", "static") as server:
        with Session(address, timeout=0.5, shared_channel=True) as session:
            controls = session.controls()
            session.step(controls)
            session.step(controls)
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=10)
            started = time.monotonic()
            with pytest.raises(TimeoutError):
                session.step(controls)
            assert time.monotonic() - started < 1.5
            assert not session.shared_channel  # given up: a late answer would be taken for the next one's
