"""A Session uses a coupler extension only when the server announced it in its handshake."""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time
from collections.abc import Iterator

import pytest

from coupler import _native
from coupler.controller.session import Session
from coupler.scenes.static import StaticScene
from coupler.wire.codec import encode
from coupler.wire.errors import ExtensionNotSupportedError, TimeoutError
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    Message,
    ResetMessage,
    ServerInfo,
)

_names = itertools.count()


class RecordingServer:
    """Answers HandshakeInit with the static scene (telling `info` about itself) and Controls with its
    sensors; keeps every request, unanswered ones included (a ROUTER socket needs no answer)."""

    def __init__(self, info: ServerInfo | None) -> None:
        self.scene = StaticScene()
        self.handshake = dataclasses.replace(self.scene.handshake(), server=info)
        self.requests: list[Message] = []
        self._stop = threading.Event()
        self._server = _native.Server(f"inproc://session-extensions-{next(_names)}")
        self.address: str = self._server.endpoint
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        deadline = time.monotonic() + 30.0
        while not self._stop.is_set() and time.monotonic() < deadline:
            try:
                received = self._server.receive(0.02)
            except TimeoutError:
                continue
            request = received.message
            self.requests.append(request)
            if isinstance(request, HandshakeInitMessage):
                self._server.reply(received, encode(self.handshake))
            elif isinstance(request, ControlMessage):
                self._server.reply(received, encode(self.scene.sensors()))

    def stop(self) -> list[Message]:
        time.sleep(0.1)  # a goodbye has no answer to wait for
        self._stop.set()
        self._thread.join(timeout=10)
        self._server.close()
        return self.requests


COUPLER = ServerInfo("coupler", "test", ["steps", "goodbye", "ranges"])


@pytest.fixture
def serve() -> Iterator:
    servers: list[RecordingServer] = []

    def start(info: ServerInfo | None) -> RecordingServer:
        servers.append(RecordingServer(info))
        return servers[-1]

    yield start
    for server in servers:
        server._stop.set()


def _is_goodbye(message: Message) -> bool:
    return isinstance(message, ErrorMessage) and message.code == ErrorCode.SESSION_ENDED


def test_closing_tells_a_server_that_announced_goodbye_that_the_controller_leaves(serve):
    server = serve(COUPLER)
    Session(server.address, timeout=2.0).close()
    assert _is_goodbye(server.stop()[-1])


def test_closing_sends_nothing_to_a_server_that_announced_no_extensions(serve):
    server = serve(None)
    Session(server.address, timeout=2.0).close()
    assert not any(_is_goodbye(m) for m in server.stop())


def test_closing_sends_nothing_to_a_coupler_server_that_did_not_announce_goodbye(serve):
    server = serve(ServerInfo("coupler", "test", ["steps"]))
    Session(server.address, timeout=2.0).close()
    assert not any(_is_goodbye(m) for m in server.stop())


def test_more_than_one_step_to_a_server_without_steps_raises_and_sends_nothing(serve):
    server = serve(None)
    with Session(server.address, timeout=2.0) as session:
        controls = session.controls()
        controls.steps = 10
        with pytest.raises(ExtensionNotSupportedError, match="10 steps per Control.*'steps'.*Click server"):
            session.step(controls)
    assert not any(isinstance(m, ControlMessage) for m in server.stop())


@pytest.mark.parametrize(
    ("info", "steps"),
    [(None, 1), (None, 0), (COUPLER, 10)],
    ids=["one-step-to-click", "unset-to-click", "ten-steps-to-coupler"],
)
def test_steps_go_out_as_asked_when_one_or_when_the_server_announced_steps(serve, info, steps):
    server = serve(info)
    with Session(server.address, timeout=2.0) as session:
        controls = session.controls()
        controls.steps = steps
        session.step(controls)
    assert [m.steps for m in server.stop() if isinstance(m, ControlMessage)] == [steps]


def test_a_reset_to_a_keyframe_on_a_server_without_keyframes_raises_and_sends_nothing(serve):
    server = serve(COUPLER)
    with Session(server.address, timeout=2.0) as session, pytest.raises(ExtensionNotSupportedError):
        session.reset(keyframe="home")
    assert not any(isinstance(m, ResetMessage) for m in server.stop())
