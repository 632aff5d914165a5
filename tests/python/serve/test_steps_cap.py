"""The coupler `steps` extension: capped, and a wire value too large for 32 bits is refused, not truncated."""

from __future__ import annotations

import pytest

from coupler.scenes.static import StaticScene
from coupler import _native
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.codec import decode, encode
from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, ObjectControl

STEPS_FIELD = 100  # ControlMessage.steps, the coupler extension
MAX_STEPS_PER_CONTROL = _native.ControlLayout.MAX_STEPS


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def control_with_wire_steps(steps: int) -> bytes:
    """A valid Control frame whose steps field on the wire is `steps` (a scalar's last occurrence wins)."""
    frame = encode(ControlMessage(objects={"arm": ObjectControl([0.0] * 7)}))
    return frame + varint(STEPS_FIELD << 3) + varint(steps)


def test_a_steps_of_two_to_the_32_plus_5_is_read_whole_not_as_5():
    assert decode(control_with_wire_steps(2**32 + 5)).steps == 2**32 + 5


@pytest.mark.parametrize("steps", [MAX_STEPS_PER_CONTROL + 1, 2**32 + 5, 2**64 - 1])
def test_a_steps_above_the_cap_is_refused_naming_the_cap_and_nothing_steps(steps):
    sim = SimulationServer(StaticScene())
    answer = sim.handle(decode(control_with_wire_steps(steps)), b"\x00c")
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.CONTROL_MISMATCH
    assert f"steps {steps} exceeds the maximum of {MAX_STEPS_PER_CONTROL}" in answer.text
    assert sim.stats.steps == 0


def test_a_steps_at_the_cap_is_taken():
    sim = SimulationServer(StaticScene())
    sim.handle(decode(control_with_wire_steps(MAX_STEPS_PER_CONTROL)), b"\x00c")
    assert sim.stats.steps == MAX_STEPS_PER_CONTROL
