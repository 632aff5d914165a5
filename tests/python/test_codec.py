"""What the Python codec rejects, and how it names the problem."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coupler.codec import decode, encode
from coupler.errors import Error, ProtocolError
from coupler.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    HandshakeInitMessage,
    ObjectControl,
    ObjectSensors,
    ResetMessage,
    Sensor,
    SensorMessage,
    ValueType,
)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field (numbers below 16)."""
    return bytes([number << 3 | 2, len(payload)]) + payload


def doubles(number: int, values: list[float]) -> bytes:
    return field(number, struct.pack(f"<{len(values)}d", *values))


def test_an_empty_frame_is_a_handshake_init_of_undefined_version():
    assert decode(b"") == HandshakeInitMessage(version=0)


def test_bytes_that_are_not_protobuf_are_rejected():
    with pytest.raises(ProtocolError, match="not a protobuf message") as caught:
        decode(b"\xff\xff\xff\xff")
    assert caught.value.code == ErrorCode.MALFORMED_FRAME


def test_an_unknown_message_type_is_named():
    with pytest.raises(ProtocolError, match="unknown message type 42") as caught:
        decode(b"\x08\x2a")
    assert caught.value.code == ErrorCode.UNEXPECTED_MESSAGE


def test_a_truncated_frame_is_rejected():
    frame = encode(SensorMessage(objects={"arm": ObjectSensors(angles=[1.0, 2.0, 3.0])}, simulated_time=1.0))
    with pytest.raises(ProtocolError, match="not a valid Sensor message|not a protobuf message"):
        decode(frame[:-5])


def test_a_control_object_with_two_value_lists_is_rejected():
    obj = doubles(1, [1.0]) + doubles(5, [1.0])
    frame = b"\x08\x02" + field(2, field(1, b"robot1") + field(2, obj))
    with pytest.raises(ProtocolError, match="control object 'robot1' sets 2 of"):
        decode(frame)


def test_a_vector_sensor_without_three_numbers_is_rejected():
    sensor = field(4, doubles(1, [1.0, 2.0]))
    frame = b"\x08\x03" + field(3, field(1, b"box") + field(2, field(4, sensor)))
    with pytest.raises(ProtocolError, match="has 2 numbers, not 3"):
        decode(frame)


def test_an_unknown_value_type_in_a_handshake_is_named():
    frame = b"\x08\x01" + field(4, field(1, b"robot1") + field(2, b"\x40\x4d"))  # controlTypesInOrder = 77
    with pytest.raises(ProtocolError, match="unknown value type 77 in handshake object 'robot1'"):
        decode(frame)


def test_the_encoder_refuses_a_sensor_value_with_the_wrong_count():
    with pytest.raises(Error, match="POSITION sensor value has 3 numbers, not 1"):
        encode(SensorMessage(objects={"a": ObjectSensors(object_sensors=[Sensor(ValueType.POSITION, (1.0,))])}))


def test_the_steps_extension_is_absent_unless_set():
    plain = ControlMessage(objects={"r": ObjectControl([1.0])})
    assert len(encode(ControlMessage(objects=plain.objects, steps=10))) > len(encode(plain))
    assert decode(encode(plain)).steps == 0


@given(st.binary(max_size=256))
@settings(max_examples=300, deadline=None)
def test_decoding_arbitrary_bytes_raises_nothing_but_protocol_error(frame):
    try:
        decode(frame)
    except ProtocolError:
        pass


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
names = st.text(min_size=1, max_size=8)
vector_types = [t for t in ValueType if t.width == 3]
scalar_types = [t for t in ValueType if t.width == 1 and t not in (ValueType.MULTIPLE, ValueType.ACTIVATED)]
sensors = st.one_of(
    st.builds(Sensor, st.sampled_from(vector_types), st.tuples(finite, finite, finite)),
    st.builds(Sensor, st.sampled_from(scalar_types), st.tuples(finite)),
    st.builds(Sensor, st.just(ValueType.ACTIVATED), st.sampled_from([(0.0,), (1.0,)])),
)
object_sensors = st.builds(
    ObjectSensors,
    angles=st.lists(finite, max_size=7),
    angular_velocities=st.lists(finite, max_size=7),
    torques=st.lists(finite, max_size=7),
    forces=st.lists(st.tuples(finite, finite, finite), max_size=3),
    object_sensors=st.lists(sensors, max_size=3),
    sensors=st.dictionaries(names, st.lists(sensors, max_size=3), max_size=3),
)
controls = st.builds(
    ControlMessage,
    objects=st.dictionaries(
        names,
        st.builds(ObjectControl, st.lists(finite, min_size=1, max_size=8), st.dictionaries(names, st.booleans(), max_size=2),
                  st.sampled_from(list(ControlField))),
        max_size=3,
    ),
    steps=st.integers(0, 2**32 - 1),
)


@given(st.one_of(controls, st.builds(SensorMessage, st.dictionaries(names, object_sensors, max_size=3), finite)))
@settings(max_examples=200, deadline=None)
def test_any_valid_message_survives_encode_and_decode(message):
    assert decode(encode(message)) == message


def test_messages_without_content_encode_to_their_type_alone():
    assert encode(ResetMessage()) == b"\x08\x04"
