"""Bad input against a running coupler server: each gets an ErrorMessage naming
the problem, and the server then serves a normal handshake and control."""


import pytest
import zmq

from coupler.wire.codec import decode, encode
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    ObjectSensors,
    SensorMessage,
)
from coupler.controller.session import Session
from peers import address_for, coupler_server

SENSOR_FRAME = encode(SensorMessage(objects={"arm": ObjectSensors(angles=[0.1] * 7)}, simulated_time=1.0))

BAD_INPUT = {
    "empty frame": ([b""], ErrorCode.VERSION_NOT_SUPPORTED, "version 0"),
    "random bytes": ([b"\xde\xad\xbe\xef\xff\xff"], ErrorCode.MALFORMED_FRAME, "not a protobuf message"),
    "truncated frame": ([SENSOR_FRAME[:-4]], ErrorCode.MALFORMED_FRAME, "malformed frame"),
    "unknown message type": ([b"\x08\x63"], ErrorCode.UNEXPECTED_MESSAGE, "unknown message type 99"),
    "multi-frame message": ([encode(HandshakeInitMessage()), b"\x08\x04"], ErrorCode.MALFORMED_FRAME, "multi-frame message of 2 frames"),
    "message out of turn": ([encode(HandshakeMessage())], ErrorCode.UNEXPECTED_MESSAGE, "HandshakeMessage is sent by servers"),
    "control for an unknown robot": (
        [encode(ControlMessage(objects={"robot9": ObjectControl([0.0])}))],
        ErrorCode.CONTROL_MISMATCH,
        "unknown object 'robot9'",
    ),
}


@pytest.fixture(scope="module")
def server_address(tmp_path_factory):
    address = address_for("ipc", tmp_path_factory.mktemp("bad-input"))
    with coupler_server(address, "--scene", "static"):
        yield address


def send_raw(address: str, frames: list[bytes]) -> ErrorMessage:
    context = zmq.Context()
    try:
        socket = context.socket(zmq.REQ)
        socket.linger = 0
        socket.rcvtimeo = 5000
        socket.connect(address)
        socket.send_multipart(frames)
        return decode(socket.recv())
    finally:
        context.destroy(linger=0)


@pytest.mark.parametrize("case", sorted(BAD_INPUT))
def test_bad_input_gets_an_error_naming_the_problem_and_the_server_goes_on(server_address, case):
    frames, code, problem = BAD_INPUT[case]
    answer = send_raw(server_address, frames)
    assert isinstance(answer, ErrorMessage)
    assert answer.code == code
    assert problem in answer.text

    with Session(server_address, timeout=5.0) as session:
        before = session.sensors().time
        readings = session.step(session.controls())
    assert readings.time == pytest.approx(before + session.handshake.time_step)
