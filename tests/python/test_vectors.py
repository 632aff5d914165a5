"""The shared vectors: Python decodes each, re-encodes it byte for byte, and
encodes its own copy of each message into exactly the vector."""

from pathlib import Path

import pytest

from coupler.codec import decode, encode
from tests.vectors.make_vectors import vectors

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
MESSAGES = vectors()


def frame(name: str) -> bytes:
    return (VECTORS / f"{name}.bin").read_bytes()


def test_there_is_a_vector_for_every_message_kind():
    from coupler.messages import MESSAGE_TYPES

    assert {type(m) for m in MESSAGES.values()} == set(MESSAGE_TYPES)
    assert sorted(p.stem for p in VECTORS.glob("*.bin")) == sorted(MESSAGES)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_vector_decodes_to_the_message_it_was_made_from(name):
    decoded = decode(frame(name))
    expected = MESSAGES[name]
    if hasattr(expected, "control_type"):
        expected.control_type = decoded.control_type  # derived on encoding, explicit after decoding
    assert decoded == expected


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_vector_re_encodes_byte_for_byte(name):
    assert encode(decode(frame(name))) == frame(name)


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_encoder_reproduces_vector(name):
    assert encode(MESSAGES[name]) == frame(name)
