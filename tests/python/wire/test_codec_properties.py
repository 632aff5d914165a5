"""The codec on random input beyond tests/python/wire/test_codec.py's: NaN
payloads, infinities and -0.0 come back bit for bit, and a damaged frame is
either refused with a code or read into a message whose frame reads back the
same.
"""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from coupler.wire.codec import decode, encode
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode
from message_strategies import all_numbers, valid_messages

bounded = settings(max_examples=300, deadline=None)


def reencoded(frame: bytes) -> bytes | ProtocolError:
    """encode(decode(frame)), or the refusal of the frame."""
    try:
        return encode(decode(frame))
    except ProtocolError as refusal:
        return refusal


@given(valid_messages(all_numbers))
@bounded
def test_nan_infinities_and_negative_zero_come_back_bit_for_bit(message):
    frame = encode(message)
    assert encode(decode(frame)) == frame


@st.composite
def damaged_frames(draw: st.DrawFn) -> bytes:
    """A valid frame with a few bytes overwritten, dropped or inserted, or cut short."""
    frame = bytearray(encode(draw(valid_messages())))
    for _ in range(draw(st.integers(1, 4))):
        place = draw(st.integers(0, len(frame)))
        edit = draw(st.sampled_from(["overwrite", "drop", "insert", "cut"]))
        if edit == "insert" or place == len(frame):
            frame.insert(place, draw(st.integers(0, 255)))
        elif edit == "overwrite":
            frame[place] = draw(st.integers(0, 255))
        elif edit == "drop":
            del frame[place]
        else:
            del frame[place:]
    return bytes(frame)


@given(damaged_frames())
@example(b"\x08\x02\xa8\x06\x80\x01\xba\x06\x07\x80\x01\x80\x80\x80\x80\x10")  # a resetWorlds of 2**32
@bounded
def test_a_damaged_frame_is_refused_with_a_code_or_read_into_a_frame_that_reads_back_the_same(frame):
    outcome = reencoded(frame)
    if isinstance(outcome, bytes):
        assert reencoded(outcome) == outcome
    else:
        assert outcome.code in (ErrorCode.MALFORMED_FRAME, ErrorCode.UNEXPECTED_MESSAGE)
