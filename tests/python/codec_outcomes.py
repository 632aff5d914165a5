"""What each codec makes of a frame, for the tests that compare them.

`coupler._native_testing.reencode` is the C++ codec's encode(decode(frame)); the
Python codec's is encode(decode(frame)). Both take, refuse and re-encode
every frame alike but one kind, where protobuf's two runtimes themselves
differ: a field numbered 0 inside a group the schema does not know. The
Python runtime (upb) skips the group whole; the C++ parser reads into it and
refuses the frame. No coupler or Click peer writes groups, so coupler leaves
that difference as it is, and the comparisons name it.
"""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.descriptor import Descriptor

from coupler._native import testing as _native_testing
from coupler._proto import coupler_pb2 as pb
from coupler.wire.codec import decode, encode, to_proto
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode

__all__ = ["codec_outcomes", "only_cpp_refuses_a_field_zero_in_a_group"]


def _reencoded(reencode: Callable[[bytes], bytes], frame: bytes) -> bytes | int:
    """A codec's encode(decode(frame)), or the code it refuses the frame with."""
    try:
        return reencode(frame)
    except ProtocolError as refusal:
        return int(refusal.code)


def _python_reencode(frame: bytes) -> bytes:
    return encode(decode(frame))


def _varint(frame: bytes, at: int) -> tuple[int, int] | None:
    value = shift = 0
    while at < len(frame) and shift < 70:
        byte = frame[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if byte < 0x80:
            return value, at
    return None


def _walk(frame: bytes, at: int, end: int, type: Descriptor | None, group: int | None) -> tuple[str, int]:
    """Reads fields as a parser of `type` does: "zero" at a field numbered 0 inside a group,
    "end" at the end of the message or group, "bad" at anything else that is wrong."""
    while at < end:
        read = _varint(frame, at)
        if read is None:
            return "bad", at
        tag, at = read
        number, wire_type = tag >> 3, tag & 7
        if number == 0:
            return ("zero" if group is not None else "bad"), at
        if wire_type == 0:
            read = _varint(frame, at)
            if read is None:
                return "bad", at
            at = read[1]
        elif wire_type in (1, 5):
            at += 8 if wire_type == 1 else 4
        elif wire_type == 2:
            read = _varint(frame, at)
            if read is None or read[1] + read[0] > end:
                return "bad", at
            length, at = read
            field = None if type is None else type.fields_by_number.get(number)
            if field is not None and field.message_type is not None:
                inner, _ = _walk(frame, at, at + length, field.message_type, None)
                if inner != "end":
                    return inner, at
            at += length
        elif wire_type == 3:
            inner, at = _walk(frame, at, end, None, number)
            if inner != "end":
                return inner, at
        elif wire_type == 4:
            return ("end" if group == number else "bad"), at
        else:
            return "bad", at
    return ("end" if group is None and at == end else "bad"), at


def _field_zero_in_a_group(frame: bytes) -> bool:
    """Whether the frame, read as the kind the Python codec reads it as (or as the header, for a frame it
    refuses), holds a field numbered 0 inside a group."""
    try:
        type = to_proto(decode(frame)).DESCRIPTOR
    except ProtocolError:
        type = pb.Message.DESCRIPTOR
    return _walk(frame, 0, len(frame), type, None)[0] == "zero"


def codec_outcomes(frame: bytes) -> tuple[bytes | int, bytes | int]:
    """The Python and the C++ codec's encode(decode(frame)), each, or the code it refuses the frame with."""
    return _reencoded(_python_reencode, frame), _reencoded(_native_testing.reencode, frame)


def only_cpp_refuses_a_field_zero_in_a_group(frame: bytes, cpp: bytes | int) -> bool:
    """Whether the C++ codec refused the frame as malformed for the one reason the Python codec cannot see."""
    return cpp == ErrorCode.MALFORMED_FRAME and _field_zero_in_a_group(frame)
