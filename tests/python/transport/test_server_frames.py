"""Bad frames against coupler.Server (the C++ server): each is answered with an ErrorMessage naming the
problem, counted, logged, and never reaches the caller; the server then
serves a normal request."""

import time

import pytest
import zmq

from coupler.wire.codec import decode, encode
from coupler.wire.messages import (
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectSensors,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.transport.server import Server

SENSOR_FRAME = encode(SensorMessage(objects={"arm": ObjectSensors(angles=[0.1] * 7)}, simulated_time=1.0))

BAD_FRAMES = {
    "random bytes": ([b"\xde\xad\xbe\xef\xff\xff"], ErrorCode.MALFORMED_FRAME, "is not a protobuf message"),
    "truncated frame": ([SENSOR_FRAME[:-4]], ErrorCode.MALFORMED_FRAME, "is not a valid Sensor message"),
    "multi-frame message": (
        [encode(HandshakeInitMessage()), encode(ResetMessage())],
        ErrorCode.MALFORMED_FRAME,
        "multi-frame message of 2 frames",
    ),
    "unknown message type": ([b"\x08\x63"], ErrorCode.UNEXPECTED_MESSAGE, "unknown message type 99"),
}


@pytest.fixture
def server(make_address):
    with Server(make_address("ipc")) as server:
        yield server


@pytest.fixture
def raw_peer(server):
    """A bare zmq socket factory connected to the server, for frames no Client would send."""
    context = zmq.Context()

    def connect(kind: int = zmq.REQ) -> zmq.Socket:
        socket = context.socket(kind)
        socket.linger = 0
        socket.connect(server.endpoint)
        return socket

    yield connect
    context.destroy(linger=0)


def answer_to(server: Server, peer: zmq.Socket, frames: list[bytes]) -> list[bytes]:
    """Send frames from the peer and let the server handle them until the peer has an answer."""
    peer.send_multipart(frames)
    deadline = time.monotonic() + 2.0
    while not peer.poll(10):
        assert server.try_receive() is None, "a bad frame reached the caller"
        assert time.monotonic() < deadline, "the server never answered"
    return peer.recv_multipart()


def serves_a_normal_request(server: Server, peer: zmq.Socket) -> bool:
    peer.send(encode(HandshakeInitMessage()))
    request = server.receive(timeout=2.0)
    server.reply(request, HandshakeMessage(time_step=0.01))
    assert peer.poll(2000)
    answer = decode(peer.recv())
    return isinstance(answer, HandshakeMessage) and answer.time_step == 0.01


@pytest.mark.parametrize("case", sorted(BAD_FRAMES))
def test_a_bad_frame_is_answered_with_an_error_naming_it_and_the_server_goes_on(server, raw_peer, case, caplog):
    frames, code, problem = BAD_FRAMES[case]
    peer = raw_peer()
    (frame,) = answer_to(server, peer, frames)
    answer = decode(frame)
    assert isinstance(answer, ErrorMessage)
    assert answer.code == code
    assert problem in answer.text
    assert server.bad_frames == 1
    assert problem in caplog.text
    assert serves_a_normal_request(server, peer)


def test_an_empty_frame_reaches_the_caller_as_a_handshake_init_of_version_0(server, raw_peer):
    peer = raw_peer()
    peer.send(b"")
    assert server.receive(timeout=2.0).message == HandshakeInitMessage(version=0)
    assert server.bad_frames == 0


def test_a_message_without_a_delimiter_is_answered_with_an_error(server, raw_peer):
    peer = raw_peer(zmq.DEALER)
    (frame,) = answer_to(server, peer, [encode(SensorRequestMessage())])
    answer = decode(frame)
    assert answer.code == ErrorCode.MALFORMED_FRAME
    assert "no empty delimiter" in answer.text
    assert server.bad_frames == 1


def test_a_delimiter_without_a_payload_is_answered_with_an_error(server, raw_peer):
    peer = raw_peer(zmq.DEALER)
    delimiter, frame = answer_to(server, peer, [b""])
    assert delimiter == b""
    assert "no payload" in decode(frame).text


def test_bad_frames_before_a_request_do_not_end_the_receive_that_gets_it(server, raw_peer):
    peer = raw_peer(zmq.DEALER)  # one connection keeps its messages in order
    for _ in range(3):
        peer.send_multipart([b"", b"\xff\xff\xff"])
    peer.send_multipart([b"", encode(SensorRequestMessage())])
    assert server.receive(timeout=2.0).message == SensorRequestMessage()
    assert server.bad_frames == 3


def test_a_frame_encoded_already_is_sent_as_the_answer_byte_for_byte(server, raw_peer):
    peer = raw_peer()
    peer.send(encode(SensorRequestMessage()))
    frame = SENSOR_FRAME + b"\x2a\x00"  # a state and an empty field after it, as an answer with parts added
    server.reply_frame(server.receive(timeout=2.0), frame)
    assert peer.poll(2000)
    assert peer.recv() == frame
