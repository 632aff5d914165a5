"""The Python and the C++ codec agree on every frame: random valid messages of
every kind cross from one language to the other unchanged, byte for byte, and
both codecs refuse exactly the same broken frames (but for the one
difference of protobuf's runtimes that tests/python/codec_outcomes.py names).

The C++ codec is reached through `coupler._native_testing.reencode(frame)`, which is
C++ encode(decode(frame)): a frame it gives back unchanged was read by C++ into
a message with the same content, since both encoders are deterministic.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from coupler._native import testing as _native_testing
from coupler.wire.codec import decode, encode
from coupler.wire.messages import ErrorCode, MessageType
from codec_outcomes import codec_outcomes, only_cpp_refuses_a_field_zero_in_a_group
from message_strategies import all_numbers, as_decoded, valid_messages

bounded = settings(max_examples=300, deadline=None)


def assert_both_codecs_judge_alike(frame: bytes) -> None:
    python, cpp = codec_outcomes(frame)
    assert python == cpp or only_cpp_refuses_a_field_zero_in_a_group(frame, cpp)


def python_reencode(frame: bytes) -> bytes:
    return encode(decode(frame))


# ---- Valid messages, Python -> C++ -> Python


@given(valid_messages())
@bounded
def test_cpp_reads_every_python_frame_and_writes_it_back_byte_for_byte(message):
    frame = encode(message)
    assert _native_testing.reencode(frame) == frame


@given(valid_messages())
@bounded
def test_python_reads_from_a_cpp_frame_the_message_python_sent(message):
    from_cpp = _native_testing.reencode(encode(message))
    assert decode(from_cpp) == as_decoded(message)


@given(valid_messages())
@bounded
def test_a_cpp_frame_re_encodes_in_python_byte_for_byte(message):
    from_cpp = _native_testing.reencode(encode(message))
    assert encode(decode(from_cpp)) == from_cpp


@given(valid_messages(all_numbers))
@bounded
def test_nan_infinities_and_negative_zero_cross_both_ways_bit_for_bit(message):
    frame = encode(message)
    assert _native_testing.reencode(frame) == frame
    assert python_reencode(_native_testing.reencode(frame)) == frame


@given(valid_messages())
@bounded
def test_cpp_describes_every_python_frame_as_its_kind(message):
    kind = type(message).__name__.removesuffix("Message")
    assert _native_testing.describe(encode(message)).startswith(kind + " { ")


# ---- Broken frames: both codecs refuse the same ones, with the same code


@given(st.binary(max_size=128))
@bounded
def test_both_codecs_refuse_the_same_arbitrary_bytes(frame):
    assert_both_codecs_judge_alike(frame)


@given(st.sampled_from(list(MessageType)), st.binary(max_size=128))
@bounded
def test_both_codecs_refuse_the_same_bytes_behind_each_message_type(message_type, body):
    frame = bytes([0x08, message_type]) + body
    assert_both_codecs_judge_alike(frame)


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
@bounded
def test_both_codecs_refuse_the_same_damaged_frames_and_agree_on_the_rest(frame):
    assert_both_codecs_judge_alike(frame)


def test_the_one_frame_kind_they_judge_apart_is_a_field_numbered_0_inside_a_group():
    frame = b"\x08\x02" + b"\x33\x02\x00\x34"  # a Control, then group 6 holding a field numbered 0
    python, cpp = codec_outcomes(frame)
    assert (python, cpp) == (b"\x08\x02", ErrorCode.MALFORMED_FRAME)
    assert only_cpp_refuses_a_field_zero_in_a_group(frame, cpp)
    assert not only_cpp_refuses_a_field_zero_in_a_group(b"\x08\x02\x33\x0a\x00\x34", cpp)  # field 1 is fine
