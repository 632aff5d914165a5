"""The server end of a connection: the C++ `coupler::Server`, with requests as messages.

Serving programs that care for speed use `coupler._native.Server` frames
directly (`coupler.serve.native_responder`); this class is the same server for
code that wants typed messages, as `coupler.Client` gives them on the other end.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from coupler import _native
from coupler.transport.options import TransportOptions
from coupler.wire.codec import encode
from coupler.wire.messages import Message

__all__ = ["Request", "Server"]

log = logging.getLogger(__name__)


@dataclass
class Request:
    """A message received by a Server, with what its answer needs."""

    message: Message
    native: _native.Request = field(repr=False)

    @property
    def size(self) -> int:
        """Bytes of the frame on the wire."""
        return self.native.size

    @property
    def peer(self) -> bytes:
        """Identifies the connection it came from (stable while the peer stays connected)."""
        return self.native.peer


class Server:
    """Binds a ROUTER socket on tcp://, ipc:// or inproc:// (inproc reaches the C++ clients of this process, `Client`).

    REQ peers (Click controllers among them) connect as to a REP server. A
    bad frame never reaches the caller and never stops the server: it is
    answered with an ErrorMessage naming the problem, logged, counted in
    `bad_frames`, and receiving goes on. `options` sets heartbeats, the
    frame size limit and CurveZMQ (`TransportOptions`); each client refused
    by CURVE is logged with its address and key.
    """

    def __init__(
        self,
        address: str,
        options: TransportOptions | None = None,
        on_bad_frame: Callable[[str], None] | None = None,
    ) -> None:
        options = options or TransportOptions()
        self._on_bad_frame = on_bad_frame or (lambda problem: log.warning("bad frame: %s", problem))
        self._server = _native.Server(
            address,
            on_bad_frame=self._on_bad_frame,
            on_refused_client=lambda refusal: log.warning("%s", refusal),
            **options.server_keywords(),
        )
        self.endpoint: str = self._server.endpoint

    @property
    def bad_frames(self) -> int:
        """Frames refused so far (not valid messages, multi-part, no envelope)."""
        return self._server.bad_frames

    def receive(self, timeout: float) -> Request:
        """Block up to `timeout` seconds for a valid request; raise TimeoutError otherwise."""
        native = self._server.receive(timeout)
        return Request(native.message, native)

    def try_receive(self) -> Request | None:
        """Non-blocking: the next valid request, or None when none is waiting."""
        native = self._server.try_receive()
        return None if native is None else Request(native.message, native)

    def reply(self, request: Request, message: Message) -> None:
        """Answer a request. Never blocks; an answer that cannot be delivered is logged and dropped."""
        self._server.reply(request.native, encode(message))

    def reply_frame(self, request: Request, frame: bytes) -> None:
        """Answer a request with a frame encoded already (an answer put together from encoded parts, as a
        server adds images to a state's frame); as `reply` otherwise."""
        self._server.reply(request.native, frame)

    def take_closed_peers(self) -> list[bytes]:
        """The identities (`Request.peer`) of peers whose connection has closed since the last call; never blocks."""
        return self._server.take_closed_peers()

    def close(self) -> None:
        """Unbind; removes the socket file of an ipc:// endpoint. Safe to call twice."""
        self._server.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
