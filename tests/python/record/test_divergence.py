"""Where a replayed answer differs from the recorded one: the first field, named by its path in the protocol's own
field names, with both values; a length, an undecodable frame or an encoding alone are named as such."""

from __future__ import annotations

from coupler.record.divergence import Difference, first_difference
from coupler.wire.codec import encode
from coupler.wire.messages import ErrorCode, ErrorMessage, ObjectSensors, SensorMessage


def _sensors(*angles: float, time: float = 0.5) -> bytes:
    return encode(SensorMessage(objects={"arm": ObjectSensors(angles=list(angles))}, simulated_time=time))


def test_the_same_frames_do_not_differ():
    assert first_difference(_sensors(0.1, 0.2), _sensors(0.1, 0.2)) is None


def test_a_value_that_differs_is_named_by_object_and_field_with_both_values():
    difference = first_difference(_sensors(0.1, 0.2), _sensors(0.1, 0.25))
    assert difference == Difference("arm", "objects.arm.angleSensors[1]", "0.2", "0.25")


def test_a_field_of_the_message_itself_names_no_object():
    difference = first_difference(_sensors(0.1, time=0.5), _sensors(0.1, time=0.75))
    assert difference == Difference("", "simVars.simulatedTime", "0.5", "0.75")


def test_lists_of_other_lengths_are_told_by_their_lengths():
    difference = first_difference(_sensors(0.1, 0.2), _sensors(0.1, 0.2, 0.3))
    assert difference == Difference("arm", "objects.arm.angleSensors (length)", "2", "3")


def test_an_answer_of_another_kind_is_told_by_its_fields():
    refused = encode(ErrorMessage(code=ErrorCode.SERVER_BUSY, text="busy"))
    # The fields are compared by name across the two kinds: the first the answers do not share tells them apart.
    assert first_difference(_sensors(0.1), refused) == Difference("", "error", "'(absent)'", "'ServerBusy'")


def test_a_frame_that_does_not_decode_is_told_by_the_sizes():
    difference = first_difference(_sensors(0.1), b"\xff\xff\xff")
    assert difference is not None and (difference.object, difference.field) == ("", "frame")
    assert difference.recorded.endswith(" bytes") and difference.replayed.startswith("3 bytes (")


def test_the_same_values_encoded_otherwise_are_told_as_an_encoding_difference():
    frame = _sensors(0.1)
    unknown_field = frame + bytes([0xF8, 0x7F, 0x01])  # field 1023, a varint: unknown, read past
    difference = first_difference(frame, unknown_field)
    assert difference is not None and difference.field == "encoding"
    assert difference.recorded == frame.hex()[:64] and difference.replayed == unknown_field.hex()[:64]
