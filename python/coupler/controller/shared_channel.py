"""A lone controller's round trips through the server's shared channel (the "shm" extension), the client's side.

`Session(..., shared_channel=True)` at an ipc:// or inproc:// address asks
for the channel in its HandshakeInit; a server that offers one (a lockstep
`coupler serve` with one controller) names it in the Handshake, and the
session maps it (`coupler._native.SharedChannelClient`: one request and one
answer frame at a time in a memfd of mode 0600, each side asleep in a futex
until the other has written). After the first step through the socket, the
session's Controls and reads go through it; the server answers an empty
frame for a request only its socket path serves, which the session then
sends through the socket. Requests for images go through it too when their
images come through the ring (coupler.controller.shared_images), so that
the answer fits the channel's frames; else through the socket. Resets and
handshakes always go through the socket.

Without a channel the session uses the socket, silently, as with
`shared_memory`: over tcp:// (the channel is not even asked for), from a
server that offers none, or one that cannot be mapped (another user). A
server whose channel another controller holds refuses the handshake with
RemoteError (SERVER_BUSY). A wait through the channel ends at the session's
timeout with coupler.TimeoutError, also when the server died; the channel is
then given up (a late answer would be taken for the next one's) and the
session goes on through the socket.
"""

from __future__ import annotations

import logging

from coupler import _native
from coupler.controller.shared_images import on_this_host
from coupler.wire.errors import Error, TimeoutError
from coupler.wire.messages import HandshakeMessage
from coupler.wire.peer_text import shown

log = logging.getLogger(__name__)


class SharedChannel:
    """The mapped channel a session leased, and whether the server serves this session's plain requests there yet."""

    def __init__(self, client: _native.SharedChannelClient) -> None:
        self._client: _native.SharedChannelClient | None = client
        self._capacity = client.capacity
        # The server answers through the channel after this controller's first step through the socket, and again
        # after one that follows a Reset.
        self.ready = False

    @classmethod
    def leased(cls, address: str, handshake: HandshakeMessage) -> SharedChannel | None:
        """The channel `handshake` leases, mapped, when the server at `address` is on this host; else None."""
        if not handshake.shared_channel or not on_this_host(address):
            return None
        try:
            return cls(_native.SharedChannelClient(handshake.shared_channel))
        except Error as error:
            log.info("round trips go through the socket: %s", shown(str(error)))
            return None

    @property
    def open(self) -> bool:
        """False once a wait through it timed out."""
        return self._client is not None

    def exchange(self, frame: bytes, timeout: float) -> bytes | None:
        """The answer to `frame` through the channel; None when it is to go through the socket (not ready yet,
        larger than the channel's frames, or handed back by the server with nothing applied). coupler.TimeoutError
        past `timeout` seconds, after which the channel is given up."""
        if self._client is None or not self.ready or len(frame) > self._capacity:
            return None
        try:
            answer = self._client.exchange(frame, timeout)
        except TimeoutError:
            self._client = None
            self.ready = False
            raise
        return answer or None
