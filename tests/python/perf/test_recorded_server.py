"""perf/floor/recorded_server: the minimal ROUTER server perf.rtt sets coupler's server against answers each
request with the recorded frame of its kind, and says how many it answered when stopped."""

import signal
import subprocess

import pytest
import zmq

from coupler.wire.codec import encode
from coupler.wire.messages import (ControlMessage, ErrorCode, ErrorMessage, HandshakeInitMessage,
                                   ResetMessage, SensorRequestMessage)
from perf.common import programs

HANDSHAKE = b"recorded handshake"
RESET = b"recorded reset"
SENSOR = b"recorded sensor"


@pytest.fixture
def server(tmp_path):
    (tmp_path / "handshake.bin").write_bytes(HANDSHAKE)
    (tmp_path / "reset.bin").write_bytes(RESET)
    (tmp_path / "sensor.bin").write_bytes(SENSOR)
    address = f"ipc://{tmp_path}/recorded.sock"
    process = subprocess.Popen([str(programs.recorded_server()), "--addr", address, "--handshake",
                                str(tmp_path / "handshake.bin"), "--reset", str(tmp_path / "reset.bin"),
                                "--sensor", str(tmp_path / "sensor.bin"),
                                "--poll-ms", "50"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    context = zmq.Context()
    socket = context.socket(zmq.REQ)
    socket.linger = 0
    socket.rcvtimeo = socket.sndtimeo = 5000
    socket.connect(address)
    yield process, socket
    socket.close()
    context.term()
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)


def _ask(socket, message) -> bytes:
    socket.send(encode(message))
    return socket.recv()


def test_a_handshake_init_is_answered_with_the_recorded_handshake(server):
    _, socket = server
    assert _ask(socket, HandshakeInitMessage()) == HANDSHAKE


def test_a_reset_is_answered_with_the_recorded_reset(server):
    _, socket = server
    assert _ask(socket, ResetMessage()) == RESET


def test_a_control_and_a_sensor_request_are_answered_with_the_recorded_sensor(server):
    _, socket = server
    assert _ask(socket, ControlMessage()) == SENSOR
    assert _ask(socket, SensorRequestMessage()) == SENSOR


def test_a_goodbye_gets_no_answer(server):
    process, socket = server
    socket.send(encode(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="bye")))
    assert socket.poll(300) == 0
    assert process.poll() is None


def test_an_interrupted_server_exits_cleanly_saying_how_many_it_answered(server):
    process, socket = server
    _ask(socket, HandshakeInitMessage())
    _ask(socket, ControlMessage())
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=10)
    assert process.returncode == 0
    assert "requests answered: 2" in output


def test_a_missing_recording_is_refused_with_a_message_naming_it(tmp_path):
    result = subprocess.run([str(programs.recorded_server()), "--addr", f"ipc://{tmp_path}/x.sock", "--handshake",
                             str(tmp_path / "none.bin"), "--reset", str(tmp_path / "none.bin"), "--sensor",
                             str(tmp_path / "none.bin")],
                            capture_output=True, text=True, timeout=10)
    assert result.returncode == 1
    assert "cannot read the recorded frame" in result.stderr
