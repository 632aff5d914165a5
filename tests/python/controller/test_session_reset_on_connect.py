"""Session(reset=True) starts from the scene's initial state (a refused Reset raises the refusal); by default a session
continues where the scene is."""

from __future__ import annotations

import pytest

from coupler.wire.codec import decode
from coupler.wire.errors import RemoteError
from coupler.wire.messages import ErrorCode, ErrorMessage, HandshakeInitMessage, ResetMessage, SensorRequestMessage
from coupler.controller.session import Session
from coupler.scenes.static import StaticScene

from scripted_server import ScriptedServer


def test_a_session_asked_to_reset_sends_a_reset_right_after_the_handshake() -> None:
    server = ScriptedServer([ResetMessage()])
    try:
        with Session(server.address, reset=True):
            pass
    finally:
        server.close()
    assert [type(decode(r)) for r in server.requests[:2]] == [HandshakeInitMessage, ResetMessage]


def test_a_session_continues_where_the_scene_is_by_default() -> None:
    server = ScriptedServer([StaticScene().sensors()])
    try:
        with Session(server.address) as session:
            session.sensors()
    finally:
        server.close()
    assert [type(decode(r)) for r in server.requests[:2]] == [HandshakeInitMessage, SensorRequestMessage]


def test_a_session_whose_reset_is_refused_raises_the_servers_refusal() -> None:
    refusal = ErrorMessage(code=ErrorCode.SERVER_BUSY, text="another controller drives this simulation")
    server = ScriptedServer([refusal])
    try:
        with pytest.raises(RemoteError) as refused:
            Session(server.address, timeout=5.0, reset=True)
    finally:
        server.close()
    assert refused.value.code == ErrorCode.SERVER_BUSY
    assert "another controller drives this simulation" in str(refused.value)


def test_a_refusal_of_any_length_shows_the_servers_text_escaped_and_cut_and_keeps_it_whole():
    text = "refused\nERROR forged line\x1b[2J" + "x" * 100_000
    server = ScriptedServer([ErrorMessage(code=ErrorCode.SERVER_BUSY, text=text)])
    try:
        with pytest.raises(RemoteError) as refused:
            Session(server.address, timeout=5.0, reset=True)
    finally:
        server.close()
    message = str(refused.value)
    assert message.startswith("peer reported error 103: refused\\nERROR forged line\\x1b[2J")
    assert "\n" not in message and "\x1b" not in message and len(message) < 300  # one line for a log
    assert refused.value.text == text  # as the server sent it, for a program to read
