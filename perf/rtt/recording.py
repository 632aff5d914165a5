"""The frames perf.rtt's minimal ROUTER server answers with, recorded from
coupler's own server once a run: its Handshake, its answer to a Reset, and
its Sensor answer to a hold-still Control, byte for byte as a client
receives them."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import zmq

from coupler.controller.controls import Controls
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error
from coupler.wire.messages import (ErrorCode, ErrorMessage, HandshakeInitMessage, HandshakeMessage, ResetMessage,
                                   SensorMessage)
from perf.common import programs
from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.processes import ServerProcess

RECEIVE_TIMEOUT_MS = 5000


@dataclass(frozen=True)
class Recording:
    handshake: Path
    reset: Path
    sensor: Path
    control_bytes: int  # the Control frame the Sensor answered, as a hold-still client sends it
    sensor_bytes: int

    def flags(self) -> list[str]:
        """recorded_server's flags naming the frames."""
        return ["--handshake", str(self.handshake), "--reset", str(self.reset), "--sensor", str(self.sensor)]


def _exchange(socket: zmq.Socket, frame: bytes) -> bytes:
    socket.send(frame)
    try:
        return socket.recv()
    except zmq.Again:
        raise BenchmarkError(f"the server recorded from did not answer within {RECEIVE_TIMEOUT_MS} ms") from None


def record(scene: str, workdir: Path, server_args: list[str]) -> Recording:
    """Start coupler's demo server on `scene`, make a handshake, a Reset and one hold-still Control with a
    plain REQ socket, keep the answers as files in `workdir`, and let the server go."""
    workdir = Path(tempfile.mkdtemp(prefix="recording-", dir=workdir))
    address = address_for("ipc", workdir)
    command = [programs.python(), "-m", "demo.server", "--addr", address, "--scene", scene, *server_args]
    with ServerProcess(command, workdir / "server.log", handshake_address=address) as server:
        context = zmq.Context.instance()
        with context.socket(zmq.REQ) as socket:
            socket.linger = 0
            socket.rcvtimeo = socket.sndtimeo = RECEIVE_TIMEOUT_MS
            socket.connect(address)
            handshake_frame = _exchange(socket, encode(HandshakeInitMessage()))
            try:
                handshake = decode(handshake_frame)
                if not isinstance(handshake, HandshakeMessage):
                    raise BenchmarkError(f"the server answered a HandshakeInit with {type(handshake).__name__}")
                reset_frame = _exchange(socket, encode(ResetMessage()))
                if not isinstance(decode(reset_frame), ResetMessage):
                    raise BenchmarkError("the server answered a Reset with no ResetMessage")
                control = Controls(handshake).frame()
                sensor_frame = _exchange(socket, control)
                if not isinstance(decode(sensor_frame), SensorMessage):
                    raise BenchmarkError("the server answered a hold-still Control with no SensorMessage")
            except Error as error:
                raise BenchmarkError(f"recording from the {scene} scene: {error}") from None
            socket.send(encode(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="recorded")))
        server.stop()
    (workdir / "handshake.bin").write_bytes(handshake_frame)
    (workdir / "reset.bin").write_bytes(reset_frame)
    (workdir / "sensor.bin").write_bytes(sensor_frame)
    return Recording(workdir / "handshake.bin", workdir / "reset.bin", workdir / "sensor.bin", len(control),
                     len(sensor_frame))
