"""The client's receive: one frame per answer, whether it waits or looks without waiting."""

import time

import pytest
import zmq

from coupler.transport.client import Client
from coupler.wire.errors import ProtocolError, TimeoutError

FIRST, SECOND = b"first part", b"second part"


@pytest.fixture
def router(make_address):
    """A bare ROUTER socket the test answers from by hand, and its address."""
    address = make_address("ipc")
    socket = zmq.Context.instance().socket(zmq.ROUTER)
    socket.linger = 0
    socket.rcvtimeo = 2000
    socket.bind(address)
    yield socket, address
    socket.close()


def _answer(router: zmq.Socket, *parts: bytes) -> None:
    envelope = router.recv_multipart()[:-1]
    router.send_multipart(envelope + list(parts))


@pytest.mark.parametrize("wait", [True, False])
def test_an_answer_of_two_frames_is_refused_naming_how_many(router, wait):
    socket, address = router
    with Client(address, timeout=2.0) as client:
        client.send_frame(b"request")
        _answer(socket, FIRST, SECOND)
        with pytest.raises(ProtocolError, match="has 2 frames; the protocol sends one"):
            if wait:
                client.receive_frame()
            else:
                deadline = time.monotonic() + 2.0
                while client.try_receive_frame() is None and time.monotonic() < deadline:
                    client.wait(0.01)


def test_the_answer_after_a_refused_one_is_read_whole(router):
    socket, address = router
    with Client(address, timeout=2.0) as client:
        client.send_frame(b"request")
        _answer(socket, FIRST, SECOND)
        with pytest.raises(ProtocolError):
            client.receive_frame()
        client.send_frame(b"again")
        _answer(socket, FIRST)
        assert client.receive_frame() == FIRST


def test_a_receive_gives_up_after_its_own_timeout_and_a_new_request_gets_its_answer(router):
    socket, address = router
    with Client(address, timeout=2.0) as client:
        client.send_frame(b"request")
        started = time.monotonic()
        with pytest.raises(TimeoutError, match="within 100 ms"):
            client.receive_frame(timeout=0.1)
        assert time.monotonic() - started < 1.5
        client.send_frame(b"again")  # REQ_RELAXED: a new request after one that timed out
        socket.recv_multipart()  # the abandoned request
        _answer(socket, SECOND)
        assert client.receive_frame() == SECOND
