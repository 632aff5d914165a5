"""The shared channel's two sides as Python binds them: a server written in Python answers through it."""

from __future__ import annotations

import threading

import pytest

from coupler import _native
from coupler.wire.errors import Error, TimeoutError


def test_a_python_server_answers_a_request_through_the_channel() -> None:
    server = _native.SharedChannelServer(4096)
    client = _native.SharedChannelClient(server.path)

    def answer() -> None:
        request = server.receive(5.0)
        server.reply(b"answer to " + request)

    answering = threading.Thread(target=answer)
    answering.start()
    assert client.exchange(b"ping", 5.0) == b"answer to ping"
    answering.join()


def test_receive_gives_none_when_no_request_came_in_time() -> None:
    assert _native.SharedChannelServer(4096).receive(0.01) is None


def test_an_unanswered_request_times_its_client_out() -> None:
    server = _native.SharedChannelServer(4096)
    with pytest.raises(TimeoutError):
        _native.SharedChannelClient(server.path).exchange(b"ping", 0.05)


def test_a_reply_over_the_capacity_is_refused_in_one_line() -> None:
    server = _native.SharedChannelServer(16)
    client = _native.SharedChannelClient(server.path)
    unanswered: list[TimeoutError] = []

    def ask() -> None:
        try:
            client.exchange(b"ping", 0.2)
        except TimeoutError as timeout:
            unanswered.append(timeout)

    asking = threading.Thread(target=ask)
    asking.start()
    assert server.receive(5.0) == b"ping"
    with pytest.raises(Error, match="over the shared channel's"):
        server.reply(b"x" * 100_000)
    asking.join()
    assert unanswered  # nothing was written in its place
