"""A lone controller's round trips through shared memory (the "shm" extension's channel), the server's side.

A lockstep server on an ipc:// or inproc:// address leases its shared channel
(`coupler._native.SharedChannelServer`: one request and one answer frame at
a time in a memfd of mode 0600, with futex wake-ups) to the controller whose
HandshakeInit asks for it (`shared_channel`); the handshake answering it
names the channel's path. While the lease lasts the hot path takes that
controller's plain Controls and reads through the channel as well as through
the socket; everything else still goes through the socket. The lease ends
when its controller says goodbye, handshakes again without asking, or its
connection closes (killed, left, or its heartbeats stopped). Another
controller asking meanwhile gets a one-line error.
"""

from __future__ import annotations

import dataclasses
import logging

from coupler import _native
from coupler.wire.messages import EXTENSION_SHARED_MEMORY, ErrorCode, ErrorMessage, HandshakeMessage

log = logging.getLogger(__name__)

# The channel's frames hold at least this many bytes each way; a client sends a larger request through the socket.
MIN_CAPACITY = 1 << 16

# The server's end of a channel, for a server of its own (a benchmark's): one request and one answer frame at a time,
# `receive(timeout)` and `reply(frame)`, at `path`.
SharedChannelServer = _native.SharedChannelServer


class SharedChannelLease:
    """The channel (made on the first request for it) and the peer that holds it, if any."""

    def __init__(self, answer_bytes: int) -> None:
        self._capacity = max(MIN_CAPACITY, 2 * answer_bytes)
        self.channel: SharedChannelServer | None = None
        self.holder: bytes | None = None

    def refusal(self, peer: bytes) -> ErrorMessage | None:
        """The answer to `peer` asking for the channel while another peer holds it; None when it may have it."""
        if self.holder is None or self.holder == peer:
            return None
        return ErrorMessage(code=ErrorCode.SERVER_BUSY,
                            text="the shared channel is leased to another controller: connect without it")

    def handshake(self, handshake: HandshakeMessage, peer: bytes) -> HandshakeMessage:
        """`handshake` naming the channel, now leased to `peer` (whom refusal() let have it)."""
        if self.channel is None:
            self.channel = SharedChannelServer(self._capacity)
        if self.holder is None:
            self.channel.forget()
            log.info("shared channel leased")
        self.holder = peer
        server = handshake.server
        if server is not None and EXTENSION_SHARED_MEMORY not in server.extensions:
            server = dataclasses.replace(server, extensions=[*server.extensions, EXTENSION_SHARED_MEMORY])
        return dataclasses.replace(handshake, server=server, shared_channel=self.channel.path)

    def release(self, peer: bytes) -> None:
        """End `peer`'s lease, if it holds one."""
        if self.holder == peer:
            self.holder = None
            log.info("shared channel released")

    def channel_of(self, peer: bytes) -> SharedChannelServer | None:
        """The channel when `peer` holds it."""
        return self.channel if self.holder == peer else None
