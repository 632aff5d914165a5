"""Client and Server over every transport (inproc, ipc, tcp): replies, non-blocking receive, timeouts."""

import builtins
import time

import pytest
import zmq

from coupler.transport.client import Client
from coupler.wire.errors import Error, TimeoutError
from coupler.wire.messages import (
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectDescription,
    ResetMessage,
    SensorRequestMessage,
    ValueType,
)
from coupler.transport.server import Server

# inproc:// reaches the C++ servers of this process: Client and Server share one ZeroMQ context.
TRANSPORTS = ["inproc", "ipc", "tcp"]
HANDSHAKE = HandshakeMessage(
    objects={"arm": ObjectDescription(controls=["joint1"], control_types=[ValueType.ANGLE])}, time_step=0.001
)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_request_gets_its_reply_over_every_transport(transport, make_address):
    with Server(make_address(transport)) as server, Client(server.endpoint, timeout=2.0) as client:
        client.send(HandshakeInitMessage())
        request = server.receive(timeout=2.0)
        assert request.message == HandshakeInitMessage()
        server.reply(request, HANDSHAKE)
        answer = client.receive()
    assert answer == HandshakeMessage(objects=HANDSHAKE.objects, time_step=0.001, control_type=ValueType.ANGLE)


def test_request_returns_an_error_message_as_the_answer(make_address):
    with Server(make_address("ipc")) as server, Client(server.endpoint, timeout=2.0) as client:
        client.send(ResetMessage())
        error = ErrorMessage(code=ErrorCode.SERVER_BUSY, text="another controller drives the simulation")
        server.reply(server.receive(timeout=2.0), error)
        assert client.receive() == error


def test_try_receive_returns_none_until_the_reply_has_arrived(make_address):
    with Server(make_address("ipc")) as server, Client(server.endpoint) as client:
        client.send(SensorRequestMessage())
        assert client.try_receive() is None
        server.reply(server.receive(timeout=2.0), ResetMessage())
        assert client.wait(2.0)
        assert client.try_receive() == ResetMessage()


def test_wait_returns_false_after_its_timeout_when_nothing_came(make_address):
    with Server(make_address("ipc")) as server, Client(server.endpoint) as client:
        client.send(SensorRequestMessage())
        start = time.monotonic()
        assert client.wait(0.05) is False
        assert 0.05 <= time.monotonic() - start < 1.0


def test_an_idle_server_says_so_without_blocking(make_address):
    with Server(make_address("ipc")) as server:
        assert server.try_receive() is None


def test_receive_times_out_after_the_clients_timeout_and_the_client_can_send_again(make_address):
    with Server(make_address("tcp")) as server, Client(server.endpoint, timeout=0.2) as client:
        client.send(SensorRequestMessage())
        server.receive(timeout=2.0)  # never answered
        start = time.monotonic()
        with pytest.raises(TimeoutError, match="no answer from .* within 200 ms"):
            client.receive()
        assert 0.2 <= time.monotonic() - start < 1.0

        client.send(ResetMessage())
        server.reply(server.receive(timeout=2.0), ResetMessage())
        assert client.receive(timeout=2.0) == ResetMessage()


def test_a_coupler_timeout_is_also_a_builtin_timeout():
    assert issubclass(TimeoutError, Error)
    assert issubclass(TimeoutError, builtins.TimeoutError)


def test_a_client_whose_request_timed_out_gets_the_new_answer_not_the_stale_one(make_address):
    with Server(make_address("ipc")) as server, Client(server.endpoint) as client:
        client.send(SensorRequestMessage())
        first = server.receive(timeout=2.0)
        with pytest.raises(TimeoutError):
            client.receive(timeout=0.05)
        client.send(ResetMessage())
        second = server.receive(timeout=2.0)
        server.reply(first, ErrorMessage(text="late answer to the abandoned request"))
        server.reply(second, ResetMessage())
        assert client.receive(timeout=2.0) == ResetMessage()


def test_a_stale_answer_alone_ends_in_a_timeout_not_a_hang(make_address):
    with Server(make_address("ipc")) as server, Client(server.endpoint) as client:
        client.send(SensorRequestMessage())
        first = server.receive(timeout=2.0)
        with pytest.raises(TimeoutError):
            client.receive(timeout=0.05)
        client.send(ResetMessage())
        server.receive(timeout=2.0)  # the current request, never answered
        server.reply(first, ErrorMessage(text="late answer to the abandoned request"))
        start = time.monotonic()
        with pytest.raises(TimeoutError):
            client.receive(timeout=0.2)
        assert time.monotonic() - start < 1.0
        assert client.try_receive() is None


def test_a_client_that_cannot_reach_a_server_times_out_instead_of_hanging():
    with Client("tcp://127.0.0.1:1", timeout=0.1) as client:
        client.send(HandshakeInitMessage())
        with pytest.raises(TimeoutError):
            client.receive()


def test_server_receive_times_out_when_no_request_comes(make_address):
    with Server(make_address("ipc")) as server:
        start = time.monotonic()
        with pytest.raises(TimeoutError, match="no request on ipc://"):
            server.receive(timeout=0.05)
        assert 0.05 <= time.monotonic() - start < 1.0


def test_bad_addresses_are_named():
    with pytest.raises(Error, match="nonsense://x"):
        Client("nonsense://x")
    with pytest.raises(Error, match="binding tcp://256.0.0.1:5"):
        Server("tcp://256.0.0.1:5")


def test_a_server_removes_its_ipc_socket_file_when_it_closes(tmp_path):
    path = tmp_path / "s.sock"
    with Server(f"ipc://{path}"):
        assert path.exists()
    assert not path.exists()


def test_a_server_bound_to_any_port_reports_the_port_it_got():
    with Server("tcp://127.0.0.1:*") as server, Client(server.endpoint, timeout=2.0) as client:
        assert not server.endpoint.endswith(":*")
        client.send(SensorRequestMessage())
        assert server.receive(timeout=2.0).message == SensorRequestMessage()


def test_an_answer_to_a_peer_that_has_gone_is_dropped_not_raised(make_address, caplog):
    with Server(make_address("tcp")) as server:
        context = zmq.Context()
        peer = context.socket(zmq.REQ)
        peer.connect(server.endpoint)
        peer.send(b"\x08\x06")
        request = server.receive(timeout=2.0)
        peer.close(0)
        context.term()
        # The disconnect reaches the server's I/O thread asynchronously.
        time.sleep(0.1)
        server.reply(request, ResetMessage())
        assert "answer dropped" in caplog.text
        # And the server goes on serving.
        with Client(server.endpoint, timeout=2.0) as client:
            client.send(SensorRequestMessage())
            server.reply(server.receive(timeout=2.0), ResetMessage())
            assert client.receive() == ResetMessage()
