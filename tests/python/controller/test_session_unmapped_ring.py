"""A ring of shared memory the session cannot map (another user's, another container's) is left alone: the
C++ session says why in one line, which reaches the Python logger, and images come through the socket."""

from __future__ import annotations

import dataclasses
import logging
import threading

from coupler import _native
from coupler.controller.session import Session
from coupler.scenes.static import StaticScene
from coupler.wire.codec import encode
from coupler.wire.errors import TimeoutError
from coupler.wire.messages import EXTENSION_SHARED_MEMORY, HandshakeInitMessage, ServerInfo, SharedMemoryRing

ELSEWHERE = SharedMemoryRing(path="/nonexistent/coupler-ring", slots=4, slot_bytes=4096, data_offset=4096,
                             min_bytes=0)


def _answer_handshakes(server: _native.Server, handshake: bytes, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            received = server.receive(0.02)
        except TimeoutError:
            continue
        if isinstance(received.message, HandshakeInitMessage):
            server.reply(received, handshake)


def test_a_ring_the_session_cannot_map_is_logged_in_one_line_and_left_alone(caplog):
    scene = StaticScene()
    handshake = dataclasses.replace(scene.handshake(), server=ServerInfo("coupler", "test", [EXTENSION_SHARED_MEMORY]),
                                    shared_memory=ELSEWHERE)
    server = _native.Server("inproc://session-unmapped-ring")
    stop = threading.Event()
    thread = threading.Thread(target=_answer_handshakes, args=(server, encode(handshake), stop))
    thread.start()
    try:
        with caplog.at_level(logging.INFO, logger="coupler.controller.session"), \
                Session(server.endpoint, timeout=5.0) as session:
            assert session.handshake.shared_memory == ELSEWHERE
            assert session.shared_images is None
    finally:
        stop.set()
        thread.join(timeout=10)
        server.close()
    (line,) = [r.getMessage() for r in caplog.records if r.name == "coupler.controller.session"]
    assert line.startswith("images come through the socket: cannot open the shared memory /nonexistent/coupler-ring")
    assert "\n" not in line
