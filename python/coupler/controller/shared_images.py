"""Images through shared memory (the "shm" extension), the client's side.

A session at an ipc:// or inproc:// address whose server announces a ring
in its handshake maps it (read-only) and asks for every answer's images
through it; `Session(..., shared_memory=False)` opts out, and a ring that
cannot be mapped (another user, another container) is left alone: images
then come through the socket, as over tcp.

An image that came through the ring is a read-only NumPy array of the
mapped memory, no copy. The array keeps the mapping alive, but the server
writes the ring's buffers in turn: its pixels stay as they were sent until
`slots - 1` more answers with shared images have been received (3 with the
server's default of 4 buffers), by this or any other client of the server.
`np.array(picture.rgb)` keeps a copy for longer; `still_valid(image)` says
whether a buffer was rewritten since.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from coupler import _native
from coupler.wire.errors import Error
from coupler.wire.messages import EXTENSION_SHARED_MEMORY, HandshakeMessage, Image, SharedSlice
from coupler.wire.peer_text import shown

log = logging.getLogger(__name__)


def on_this_host(address: str) -> bool:
    """Whether a server at `address` is on this host for certain: ipc:// and inproc:// only, never tcp://."""
    return address.startswith(("ipc://", "inproc://"))


class SharedImages:
    """The mapping of a server's ring, and the images of answers resolved through it."""

    def __init__(self, reader: _native.SharedRingReader) -> None:
        self._reader = reader

    @classmethod
    def mapped(cls, address: str, handshake: HandshakeMessage) -> SharedImages | None:
        """The ring `handshake` announces, mapped, when the server at `address` is on this host; else None."""
        ring = handshake.shared_memory
        if ring is None or not handshake.supports(EXTENSION_SHARED_MEMORY) or not on_this_host(address):
            return None
        try:
            return cls(_native.SharedRingReader(ring))
        except Error as error:
            log.info("images come through the socket: %s", shown(str(error)))
            return None

    def resolve(self, images: Sequence[Image]) -> None:
        """Point the data of `images` that lie in shared memory at the mapped pixels (no copy); coupler.Error, in
        one line, for a buffer outside the ring or one overwritten before it was read."""
        for image in images:
            if image.shared is not None:
                image.data = self._reader.view(image.shared)

    def view(self, slice: SharedSlice) -> np.ndarray:
        """The bytes `slice` names, a read-only uint8 array of the mapped memory (no copy); coupler.Error, in one
        line, for a buffer outside the ring or one overwritten before it was read."""
        return self._reader.view(slice)

    def still_valid(self, image: Image) -> bool:
        """Whether the pixels of `image` are still those the server sent (always, for one not in shared memory)."""
        return image.shared is None or self._reader.current(image.shared)
