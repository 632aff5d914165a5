"""Heartbeats, closed-peer reports and the frame size limit of the server (`coupler._native.Server`) and the client."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator

import pytest
import zmq

from coupler import _native
from coupler.transport.client import Client
from coupler.wire.codec import encode
from coupler.wire.errors import TimeoutError
from coupler.wire.messages import ErrorMessage, ResetMessage, SensorRequestMessage
from peers import free_tcp_address
from tcp_relay import TcpRelay


class MessageServer:
    """The server, answering with messages."""

    def __init__(self, address: str, **options) -> None:
        self.server = _native.Server(address, **options)
        self.endpoint: str = self.server.endpoint

    def receive(self, timeout: float):
        return self.server.receive(timeout)

    def reply(self, request, message) -> None:
        self.server.reply(request, encode(message))

    def take_closed_peers(self) -> list[bytes]:
        return self.server.take_closed_peers()

    @property
    def bad_frames(self) -> int:
        return self.server.bad_frames

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def make_server() -> Iterator[Callable[..., MessageServer]]:
    servers: list[MessageServer] = []

    def make(address: str, **options) -> MessageServer:
        servers.append(MessageServer(address, **options))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def answer_one(server: MessageServer) -> bytes:
    """Answer the next request with a Reset; return the peer it came from."""
    request = server.receive(5.0)
    server.reply(request, ResetMessage())
    return request.peer


def closed_peers_within(server: MessageServer, timeout: float) -> list[bytes]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        closed = server.take_closed_peers()
        if closed:
            return closed
        time.sleep(0.01)
    return []


HEARTBEAT = {"heartbeat": 0.2, "heartbeat_timeout": 0.6}
SILENT = {"heartbeat": 0}


@pytest.mark.parametrize("beating", ["client", "server"])
def test_heartbeats_drop_a_connection_that_went_silent_within_their_timeout(make_server, beating: str) -> None:
    # The relay closes both its connections when either end closes one: the server sees the client's drop too.
    server = make_server(free_tcp_address(), **(HEARTBEAT if beating == "server" else SILENT))
    with TcpRelay(server.endpoint) as relay, Client(relay.address, timeout=5.0,
                                                   **(HEARTBEAT if beating == "client" else SILENT)) as client:
        client.send(SensorRequestMessage())
        peer = answer_one(server)
        client.receive()
        relay.go_silent()
        started = time.monotonic()
        assert closed_peers_within(server, 0.6 + 0.6) == [peer]
        assert time.monotonic() - started < 1.2


def test_without_heartbeats_a_silent_connection_stays_up(make_server) -> None:
    server = make_server(free_tcp_address(), **SILENT)
    with TcpRelay(server.endpoint) as relay, Client(relay.address, timeout=5.0, **SILENT) as client:
        client.send(SensorRequestMessage())
        answer_one(server)
        client.receive()
        relay.go_silent()
        time.sleep(1.2)
        assert server.take_closed_peers() == []


@pytest.mark.parametrize("transport", ["tcp", "ipc"])
def test_a_killed_client_is_reported_once_by_take_closed_peers(make_server, transport: str, tmp_path) -> None:
    address = free_tcp_address() if transport == "tcp" else f"ipc://{tmp_path / 's.sock'}"
    server = make_server(address)
    script = (
        "import sys, time, zmq\n"
        "s = zmq.Context().socket(zmq.REQ)\n"
        "s.connect(sys.argv[1])\n"
        "s.send(b'')\n"  # an empty frame is a HandshakeInit
        "s.recv()\n"
        "print('answered', flush=True)\n"
        "time.sleep(60)\n"
    )
    controller = subprocess.Popen([sys.executable, "-c", script, server.endpoint], stdout=subprocess.PIPE, text=True)
    try:
        peer = answer_one(server)
        assert controller.stdout.readline().strip() == "answered"
        assert server.take_closed_peers() == []
        controller.kill()
        controller.wait(timeout=10)
        assert closed_peers_within(server, 2.0) == [peer]
        assert server.take_closed_peers() == []
    finally:
        controller.kill()
        controller.wait(timeout=10)


def test_a_peer_that_stays_is_not_reported_when_another_leaves(make_server) -> None:
    server = make_server(free_tcp_address())
    with Client(server.endpoint, timeout=5.0) as staying:
        staying.send(SensorRequestMessage())
        answer_one(server)
        staying.receive()
        with Client(server.endpoint, timeout=5.0, linger=0) as leaving:
            leaving.send(SensorRequestMessage())
            left = answer_one(server)
        assert closed_peers_within(server, 2.0) == [left]


def test_a_frame_over_the_limit_never_reaches_the_decoder_and_the_server_keeps_serving(make_server) -> None:
    server = make_server(free_tcp_address())
    context = zmq.Context()
    sender = context.socket(zmq.REQ)
    sender.linger = 0
    try:
        sender.connect(server.endpoint)
        sender.send(b"\x08" * (2 * 1024 * 1024))
        with pytest.raises(TimeoutError):
            server.receive(0.5)
        assert server.bad_frames == 0
    finally:
        sender.close(0)
        context.term()
    with Client(server.endpoint, timeout=5.0) as client:
        client.send(SensorRequestMessage())
        answer_one(server)
        assert isinstance(client.receive(), ResetMessage)


def test_a_frame_limit_of_zero_lets_a_large_frame_through(make_server) -> None:
    server = make_server(free_tcp_address(), max_frame_bytes=0)
    with Client(server.endpoint, timeout=5.0, max_frame_bytes=0) as client:
        client.send(ErrorMessage(code=105, text="x" * (2 * 1024 * 1024)))
        request = server.receive(5.0)
        assert request.size > 2 * 1024 * 1024


def test_a_client_with_a_small_limit_times_out_on_a_larger_answer_and_carries_on_after_reconnect(make_server) -> None:
    server = make_server(free_tcp_address())
    with Client(server.endpoint, timeout=0.5, max_frame_bytes=100) as client:
        client.send(SensorRequestMessage())
        server.reply(server.receive(5.0), ErrorMessage(code=105, text="y" * 1000))
        with pytest.raises(TimeoutError):
            client.receive()
        client.reconnect()
        client.send(SensorRequestMessage())
        answer_one(server)
        client.receive(2.0)
