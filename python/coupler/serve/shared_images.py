"""Images through shared memory (the "shm" extension), the server's side.

A server listening on an ipc:// or inproc:// address, whose scene has
cameras, offers a ring of buffers in shared memory in its handshake: a memfd
of mode 0600, so only its own user can open it (as /proc/PID/fd/N) and
nothing is left behind however the server ends. A client on the same host
that mapped it asks, with each Control or SensorRequest, for the answer's
images through it; when they take `MIN_BYTES` or more, their pixels are
copied into the ring's next buffer and the answer carries only where they
lie. Everything else (a client over tcp, one that did not ask, images too
small or too big for a buffer) goes through the socket as before.

A buffer is rewritten `SLOTS` answers with shared images later; its sequence
number, set to 0 while it is written, lets a client tell a buffer since
overwritten from the one it was sent.
"""

from __future__ import annotations

import dataclasses

from coupler import _native
from coupler.serve.image_answer import Rendered, encoded
from coupler.wire.messages import EXTENSION_SHARED_MEMORY, HandshakeMessage, SharedMemoryRing

SLOTS = 4  # buffers in the ring: a client's views of an answer stay valid for the next 3 such answers
MIN_BYTES = 16384  # an answer's images taking fewer bytes go through the socket: a copy is cheaper than a mapping


def offered_on(endpoint: str) -> bool:
    """Whether a server at `endpoint` offers shared memory: only where every client is on its host."""
    return _native.on_this_host(endpoint)


class SharedImages:
    """A ring of `slots` buffers of `slot_bytes` each, and the image fields of answers written through it."""

    def __init__(self, slot_bytes: int, slots: int = SLOTS, min_bytes: int = MIN_BYTES) -> None:
        self.ring = _native.SharedRingWriter(slots, slot_bytes, min_bytes)
        self.announced = SharedMemoryRing(path=self.ring.path, slots=self.ring.slots,
                                          slot_bytes=self.ring.slot_bytes, data_offset=self.ring.data_offset,
                                          min_bytes=self.ring.min_bytes)

    def handshake(self, handshake: HandshakeMessage) -> HandshakeMessage:
        """`handshake` announcing the ring and the "shm" extension."""
        server = handshake.server
        if server is not None and EXTENSION_SHARED_MEMORY not in server.extensions:
            server = dataclasses.replace(server, extensions=[*server.extensions, EXTENSION_SHARED_MEMORY])
        return dataclasses.replace(handshake, server=server, shared_memory=self.announced)

    def fields(self, rendered: Rendered, shared: bool) -> bytes:
        """The images field of an answer holding `rendered`: through the ring when the request asked (`shared`)
        and they are big enough and fit one buffer, else through the socket."""
        if shared:
            fields = _native.encode_shared_image_fields(rendered, self.ring)
            if fields is not None:
                return fields
        return encoded(rendered)
