"""Client and Server over every transport: replies, non-blocking receive, timeouts."""

import builtins
import time

import pytest
import zmq

from coupler.client import Client
from coupler.errors import Error, TimeoutError
from coupler.messages import (
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ResetMessage,
    SensorRequestMessage,
)
from coupler.server import Server
from peers import address_for


@pytest.mark.parametrize("transport", ["inproc", "ipc", "tcp"])
def test_a_request_gets_its_reply_over_every_transport(transport, tmp_path):
    address = "inproc://transport-test" if transport == "inproc" else address_for(transport, tmp_path)
    with Server(address) as server, Client(server.endpoint, timeout=2.0) as client:
        client.send(HandshakeInitMessage())
        request = server.receive(timeout=2.0)
        assert request.message == HandshakeInitMessage()
        server.reply(request, HandshakeMessage(time_step=0.001))
        answer = client.receive()
        assert isinstance(answer, HandshakeMessage)
        assert answer.time_step == 0.001


def test_try_receive_returns_none_until_the_reply_has_arrived():
    with Server("inproc://try-receive") as server, Client("inproc://try-receive") as client:
        client.send(SensorRequestMessage())
        assert client.try_receive() is None
        server.reply(server.receive(timeout=2.0), ResetMessage())
        assert client.wait(2.0)
        assert client.try_receive() == ResetMessage()


def test_an_idle_server_says_so_without_blocking():
    with Server("inproc://idle") as server:
        assert server.try_receive() is None


def test_receive_times_out_within_its_timeout_when_the_server_never_answers(tmp_path):
    with Server(address_for("tcp", tmp_path)) as server, Client(server.endpoint) as client:
        client.send(SensorRequestMessage())
        start = time.monotonic()
        with pytest.raises(TimeoutError, match="no answer from"):
            client.receive(timeout=0.2)
        assert 0.19 <= time.monotonic() - start < 1.5


def test_a_coupler_timeout_is_also_a_builtin_timeout():
    assert issubclass(TimeoutError, Error)
    assert issubclass(TimeoutError, builtins.TimeoutError)


def test_a_client_whose_request_timed_out_gets_the_new_answer_not_the_stale_one():
    with Server("inproc://stale") as server, Client("inproc://stale") as client:
        client.send(SensorRequestMessage())
        first = server.receive(timeout=2.0)
        with pytest.raises(TimeoutError):
            client.receive(timeout=0.05)
        client.send(ResetMessage())
        second = server.receive(timeout=2.0)
        server.reply(first, ErrorMessage(text="late answer to the abandoned request"))
        server.reply(second, ResetMessage())
        assert client.receive(timeout=2.0) == ResetMessage()


def test_a_client_that_cannot_reach_a_server_times_out_instead_of_hanging():
    with Client("tcp://127.0.0.1:1", timeout=0.1) as client:
        client.send(HandshakeInitMessage())
        with pytest.raises(TimeoutError):
            client.receive()


def test_server_receive_times_out_when_no_request_comes():
    with Server("inproc://no-request") as server:
        with pytest.raises(TimeoutError):
            server.receive(timeout=0.05)


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


def test_an_answer_to_a_peer_that_has_gone_is_dropped_not_raised(tmp_path, caplog):
    with Server(address_for("tcp", tmp_path)) as server:
        context = zmq.Context()
        peer = context.socket(zmq.REQ)
        peer.connect(server.endpoint)
        peer.send(b"\x08\x06")
        request = server.receive(timeout=2.0)
        peer.close(0)
        context.term()
        time.sleep(0.1)
        server.reply(request, ResetMessage())
    assert "answer dropped" in caplog.text
