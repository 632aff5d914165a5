"""The shared vectors: Python decodes each, re-encodes it byte for byte, and
encodes its own copy of each message into exactly the vector."""

from pathlib import Path

import pytest

from coupler.wire.codec import decode, encode
from coupler.wire.messages import MESSAGE_TYPES, ValueType
from tests.vectors.make_vectors import readme, vectors
from message_strategies import as_decoded

VECTORS = Path(__file__).resolve().parents[2] / "vectors"
MESSAGES = vectors()


def frame(name: str) -> bytes:
    return (VECTORS / f"{name}.bin").read_bytes()


def test_there_is_a_vector_for_every_message_kind():
    assert {type(m) for m in MESSAGES.values()} == set(MESSAGE_TYPES)
    assert sorted(p.stem for p in VECTORS.glob("*.bin")) == sorted(MESSAGES)


def _sensor_types(handshake: str, sensor: str) -> tuple[set[ValueType], set[ValueType]]:
    described = {
        t
        for o in MESSAGES[handshake].objects.values()
        for t in [*o.object_sensors, *(t for types in o.sensors.values() for t in types)]
    }
    read = {
        s.type
        for o in MESSAGES[sensor].objects.values()
        for s in [*o.object_sensors, *(s for readings in o.sensors.values() for s in readings)]
    }
    return described, read


_COUPLER_TYPES = {t for t in ValueType if t >= 100}


def test_every_click_value_type_is_a_sensor_in_the_handshake_and_a_reading_in_the_sensor_vector():
    described, read = _sensor_types("handshake", "sensor")
    assert described == read == set(ValueType) - {ValueType.MULTIPLE} - _COUPLER_TYPES


_CONTROL_ONLY = {ValueType.ACTUATOR_INPUT, ValueType.MOCAP_POSITION, ValueType.MOCAP_QUATERNION}


def test_every_coupler_value_type_is_in_the_coupler_vectors_as_a_sensor_or_the_control_type_it_only_is():
    described, read = _sensor_types("handshake_coupler", "sensor_coupler")
    assert described & _COUPLER_TYPES == read & _COUPLER_TYPES == _COUPLER_TYPES - _CONTROL_ONLY
    assert ValueType.ACTUATOR_INPUT in MESSAGES["handshake_coupler"].objects["cart"].control_types
    mocap = MESSAGES["handshake_mocap_keyframes"].objects["target"].control_types
    assert {ValueType.MOCAP_POSITION, ValueType.MOCAP_QUATERNION} <= set(mocap)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_vector_decodes_to_the_message_it_was_made_from(name):
    decoded = decode(frame(name))
    expected = MESSAGES[name]
    assert decoded == as_decoded(expected)  # a handshake's control type: derived on encoding, explicit after decoding


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_vector_re_encodes_byte_for_byte(name):
    assert encode(decode(frame(name))) == frame(name)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_encoder_reproduces_vector(name):
    assert encode(MESSAGES[name]) == frame(name)


def test_the_readme_describes_the_vectors_as_they_are():
    assert (VECTORS / "README.md").read_text() == readme(MESSAGES), "run tests/vectors/make_vectors.py"
