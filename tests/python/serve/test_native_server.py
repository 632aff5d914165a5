"""coupler._native's Server and Client, and the demo server's native path
against its pure-Python path: the same requests get the same frames."""

from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import zmq

from coupler._native import testing as _native_testing
from coupler import _native
from coupler.transport.client import Client
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error, ProtocolError, TimeoutError
from coupler.serve.native_responder import NativeResponder
from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    MessageType,
    ObjectControl,
    ObjectSensors,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
    ValueType,
)
from coupler.serve.simulation_server import SimulationServer
from coupler.scenes import load_scene
from coupler.scenes.static import StaticScene
from peers import REPO, server_command, wait_until_serving


@pytest.fixture
def problems() -> list[str]:
    """What the server reported through on_bad_frame."""
    return []


@pytest.fixture
def server(make_address: Callable[[str], str], problems: list[str]):
    with _native.Server(make_address("ipc"), on_bad_frame=problems.append) as server:
        yield server


def test_a_request_is_answered_with_the_frame_given(server):
    with Client(server.endpoint, timeout=2.0) as client:
        client.send(HandshakeInitMessage())
        request = server.receive(2.0)
        assert request.type == MessageType.HANDSHAKE_INIT
        assert (decode(request.frame), request.size) == (HandshakeInitMessage(), 2)
        server.reply(request, encode(HandshakeMessage(time_step=0.5)))
        assert client.receive().time_step == 0.5


def test_receive_times_out_with_coupler_timeout_error_and_try_receive_returns_none(server):
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        server.receive(0.05)
    assert time.monotonic() - started >= 0.05
    assert server.try_receive() is None


def test_receive_releases_the_gil_while_it_waits(server):
    received = []
    waiting = threading.Thread(target=lambda: received.append(server.receive(5.0)))
    waiting.start()
    # This thread gets to send only if the waiting one let go of the GIL.
    time.sleep(0.1)
    with Client(server.endpoint, timeout=2.0) as client:
        client.send(SensorRequestMessage())
        waiting.join(timeout=2.0)
    assert received and received[0].type == MessageType.SENSOR_REQUEST


def test_a_bad_frame_is_answered_counted_and_reported_and_never_returned(server, problems):
    peer = zmq.Context.instance().socket(zmq.REQ)
    peer.linger = 0
    peer.connect(server.endpoint)
    try:
        peer.send(b"\xde\xad\xbe\xef")
        with pytest.raises(TimeoutError):  # answered while waiting, never returned
            server.receive(0.2)
        assert peer.poll(2000)
        answer = decode(peer.recv())
    finally:
        peer.close()
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.MALFORMED_FRAME
    assert server.bad_frames == 1
    assert problems == [answer.text]


def test_close_removes_the_ipc_socket_file_and_ends_the_server(make_address):
    server = _native.Server(make_address("ipc"))
    path = Path(server.endpoint.removeprefix("ipc://"))
    assert path.exists()
    server.close()
    server.close()
    assert not path.exists()
    with pytest.raises(Error, match="closed"):
        server.receive(0.0)


def test_binding_an_address_in_use_raises_coupler_error(make_address):
    with _native.Server(make_address("tcp")) as first:
        with pytest.raises(Error, match="binding"):
            _native.Server(first.endpoint)


def test_the_native_client_talks_to_the_native_server(server):
    def serve_one() -> None:
        request = server.receive(2.0)
        server.reply(request, request.frame)  # an echo

    serving = threading.Thread(target=serve_one)
    serving.start()
    with _native_testing.Client(server.endpoint, timeout=2.0) as client:
        assert client.request(encode(SensorRequestMessage())) == encode(SensorRequestMessage())
        with pytest.raises(TimeoutError):
            client.request(encode(ResetMessage()), timeout=0.05)
    serving.join()


def test_reading_a_request_that_holds_no_control_is_refused(server):
    layout = _native.ControlLayout(encode(HandshakeMessage()))
    with Client(server.endpoint, timeout=2.0) as client:
        client.send(ResetMessage())
        with pytest.raises(ProtocolError) as refused:
            layout.read(server.receive(2.0))
    assert refused.value.code == ErrorCode.UNEXPECTED_MESSAGE


class BrokenScene(StaticScene):
    """Fails on every step, as a simulation that has gone wrong would."""

    def step(self, steps: int = 1) -> None:
        raise RuntimeError("the motor is on fire")


def test_a_simulation_failing_on_the_native_fast_path_is_answered_with_an_internal_error(make_address):
    sim = SimulationServer(BrokenScene())
    with NativeResponder(make_address("ipc"), sim) as responder, Client(responder.endpoint, timeout=2.0) as client:
        for _ in range(2):
            client.send(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}))
            request = responder.receive(2.0)
            responder.send(request, responder.respond(request))
            answer = client.receive()
            assert isinstance(answer, ErrorMessage)
            assert answer.code == ErrorCode.INTERNAL_ERROR and "the motor is on fire" in answer.text
    assert (sim.stats.requests, sim.stats.errors_sent) == (2, 2)


def test_the_native_path_needs_a_simulation_with_arrays(make_address):
    class MessagesOnly:
        def handshake(self) -> HandshakeMessage:
            return HandshakeMessage()

    with pytest.raises(TypeError, match="ArraySimulation"):
        NativeResponder(make_address("ipc"), SimulationServer(MessagesOnly()))


# ---- The demo server's two paths, compared frame by frame


def start_demo_server(address: str, *flags: str) -> subprocess.Popen:
    process = subprocess.Popen(
        server_command(address, *flags),
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    wait_until_serving(address, process)
    return process


def stop(process: subprocess.Popen) -> str:
    process.send_signal(signal.SIGTERM)
    try:
        out, _ = process.communicate(timeout=10)
    finally:
        process.kill()
    return out


# The message a controller ends its session with; no answer follows.
GOODBYE = [b"", encode(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="controller leaving"))]


def session(handshake: HandshakeMessage) -> list[list[bytes]]:
    """A controller's session, with every kind of request a server meets, as multipart messages from a DEALER."""
    rng = random.Random(7)
    controlled = {name: d for name, d in handshake.objects.items() if d.controls}
    first = sorted(controlled)[0]

    def control(k: int, steps: int = 0) -> bytes:
        objects = {
            name: ObjectControl(
                [rng.uniform(-2.0, 2.0) for _ in d.controls], {event: (k // 5) % 2 == 0 for event in d.control_events}
            )
            for name, d in controlled.items()
        }
        return encode(ControlMessage(objects=objects, steps=steps))

    def request(message) -> list[bytes]:
        return [b"", encode(message)]

    def bad_control(**objects: ObjectControl) -> list[bytes]:
        return request(ControlMessage(objects=objects))

    width = len(controlled[first].controls)
    steps = [0, 1, 3]
    frames = [request(HandshakeInitMessage()), request(SensorRequestMessage())]
    frames += [[b"", control(k, steps[k % 3])] for k in range(30)]
    frames.append(request(ControlMessage(objects={first: ObjectControl([0.1] * width)})))
    if all(t == ValueType.ANGLE for t in controlled[first].control_types):
        frames.append(request(ControlMessage(objects={first: ObjectControl([0.2] * width, field=ControlField.ANGLES)})))
    frames += [
        bad_control(robot9=ObjectControl([1.0])),
        bad_control(**{first: ObjectControl([1.0] * (width + 1))}),
        bad_control(**{first: ObjectControl([math.nan] * width)}),
        bad_control(**{first: ObjectControl([0.0] * width, {"laser": True})}),
        bad_control(**{first: ObjectControl([0.0] * width, field=ControlField.TORQUES)}),
        request(ControlMessage(steps=200_000)),
        request(SensorRequestMessage()),
        request(ResetMessage()),
        request(SensorRequestMessage()),  # at time 0: simVars left out
        *([b"", control(k)] for k in range(5)),
        request(HandshakeInitMessage(version=0)),
        request(SensorMessage(objects={first: ObjectSensors(angles=[0.0])}, simulated_time=1.0)),
        [b"", b"\xde\xad\xbe\xef\xff\xff"],
        [b"", control(0)[:-3]],
        [b"", encode(SensorRequestMessage()), encode(ResetMessage())],
        [b"", b"\x08\x63"],
        [b""],
        [encode(SensorRequestMessage())],
        GOODBYE,
        request(HandshakeInitMessage()),
        *([b"", control(k, 2)] for k in range(3)),
    ]
    return frames


def replay(address: str, frames: list[list[bytes]]) -> list[list[bytes] | None]:
    """Send each message in turn and take its answer (None when none comes)."""
    context = zmq.Context()
    peer = context.socket(zmq.DEALER)
    peer.linger = 0
    peer.connect(address)
    answers: list[list[bytes] | None] = []
    try:
        for message in frames:
            peer.send_multipart(message)
            answers.append(peer.recv_multipart() if peer.poll(200 if message == GOODBYE else 5000) else None)
    finally:
        context.destroy(linger=0)
    return answers


# The summary lines that do not depend on the wall clock.
STATS = ("simulated time:", "steps:", "controls received:", "steps without control:", "errors sent:", "values clamped:")


def summary(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(STATS)]


@pytest.mark.parametrize("scene", ["static", "arm"])
def test_native_and_pure_python_paths_answer_a_session_with_the_same_frames(scene, tmp_path):
    addresses = {path: f"ipc://{tmp_path / f'{path}.sock'}" for path in ("native", "pure")}
    servers = {
        "native": start_demo_server(addresses["native"], "--scene", scene),
        "pure": start_demo_server(addresses["pure"], "--scene", scene, "--pure-python"),
    }
    try:
        # The scene's handshake, taken without a HandshakeInit that would hold the server for its lease.
        frames = session(load_scene(scene, None).handshake())
        answers = {path: replay(address, frames) for path, address in addresses.items()}
    finally:
        outputs = {path: stop(process) for path, process in servers.items()}
    for i, (native, pure) in enumerate(zip(answers["native"], answers["pure"])):
        assert native == pure, f"answer {i} to {frames[i]!r} differs"
    assert answers["native"].count(None) == 1  # the ErrorMessage ending the session
    kinds = [decode(a[-1]) for a in answers["native"] if a is not None]
    assert sum(isinstance(k, SensorMessage) for k in kinds) >= 40
    assert sum(isinstance(k, ErrorMessage) for k in kinds) >= 12
    assert summary(outputs["native"]) == summary(outputs["pure"])
    assert any(line.startswith("controls received") for line in summary(outputs["native"]))


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc")
def test_an_idle_native_server_uses_under_one_percent_of_a_cpu(tmp_path):
    process = start_demo_server(f"ipc://{tmp_path / 'idle.sock'}", "--scene", "static")
    try:
        time.sleep(0.5)  # past start-up
        before, started = _cpu_seconds(process.pid), time.monotonic()
        time.sleep(2.0)
        used = (_cpu_seconds(process.pid) - before) / (time.monotonic() - started)
    finally:
        stop(process)
    assert used < 0.01
