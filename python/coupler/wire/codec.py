"""One codec for every message kind: message dataclasses <-> wire frames.

The codec is the C++ library's (`coupler/codec.hpp`), bound into Python:
Python and C++ peers, servers and tools read and write frames with the one
implementation, so equal messages give equal bytes in both languages by
construction. Frames are serialized deterministically (map entries sorted by
key).

Decoding then re-encoding gives back the same bytes for every frame this
encoder produces. A Click frame comes back as protobuf writes it
deterministically: the same bytes, except that map entries Click wrote in
hash order come back sorted. Zero values and empty sub-messages (simSettings,
simVars) are left out, as Click leaves them out.
"""

from __future__ import annotations

from coupler import _native
from coupler.wire.messages import Message, MessageType, SensorMessage

__all__ = ["decode", "decode_images", "encode", "message_kind"]

# By number: a recorder asks every frame's kind, faster than MessageType(number) makes it.
_KINDS = {kind.value: kind for kind in MessageType}


def encode(message: Message) -> bytes:
    """The wire frame of a message, map entries sorted by key.

    HandshakeMessage.control_type None becomes the type all controls share,
    or MULTIPLE when they differ or there are none. Raises coupler.Error for
    a value that cannot be sent (a sensor value of the wrong width, a
    MULTIPLE sensor, a number out of its field's range), TypeError for what
    is not a message.
    """
    return _native.encode(message)


def decode(frame: bytes) -> Message:
    """Read the message type from field 1, then the whole frame as that kind.

    Raises ProtocolError naming the problem for anything that is not a valid
    message, and nothing else. An empty frame is a HandshakeInit of version 0
    (UNDEFINED); unknown versions and error codes are kept as ints for the
    protocol layer to judge.
    """
    return _native.decode(frame)


def message_kind(frame: bytes) -> MessageType | None:
    """The kind of message `frame` holds, read from field 1 as decode reads it (a frame without one is a
    HandshakeInit) without decoding the rest; None for an unknown kind or a malformed frame, whose problem
    decode names."""
    kind = _native.message_kind(frame)
    return None if kind is None else _KINDS[kind]


def decode_images(frame: bytes) -> SensorMessage | None:
    """The SensorMessage of `frame` with its images and times but without its readings (objects, world sensors
    and world data left empty), or None for a frame of another kind or without images: what a recorder needs of
    every answer, without making Python numbers of readings it does not look at. Raises ProtocolError as decode."""
    return _native.decode_images(frame)
