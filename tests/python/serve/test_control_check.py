"""A Control must match the handshake before anything is applied: the control layout's check, which every
Control the server serves passes through."""

import math

import pytest

from coupler import _native
from coupler.wire.codec import encode
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    HandshakeMessage,
    ObjectControl,
    ObjectDescription,
    ValueType,
)

HANDSHAKE = HandshakeMessage(
    objects={
        "arm": ObjectDescription(
            controls=["shoulder", "elbow"],
            control_types=[ValueType.ANGLE, ValueType.ANGLE],
            control_events={"gripper": ValueType.ACTIVATED},
        ),
        "cart": ObjectDescription(controls=["wheel", "lift"], control_types=[ValueType.ANGULAR_VELOCITY_1D, ValueType.FORCE_1D]),
        "box": ObjectDescription(),
    },
    time_step=0.002,
)


def check_control(handshake: HandshakeMessage, control: ControlMessage) -> None:
    _native.ControlLayout(encode(handshake)).decode(encode(control))


def refusal(control: ControlMessage) -> str:
    with pytest.raises(ProtocolError) as caught:
        check_control(HANDSHAKE, control)
    assert caught.value.code == ErrorCode.CONTROL_MISMATCH
    return str(caught.value)


def test_a_matching_control_passes():
    check_control(HANDSHAKE, ControlMessage(objects={"arm": ObjectControl([0.1, 0.2], {"gripper": True})}))


def test_objects_left_out_are_allowed():
    check_control(HANDSHAKE, ControlMessage(objects={"cart": ObjectControl([1.0, 5.0])}))


def test_an_unknown_object_is_named():
    assert "unknown object 'robot9'" in refusal(ControlMessage(objects={"robot9": ObjectControl([1.0])}))


def test_a_wrong_value_count_is_named():
    text = refusal(ControlMessage(objects={"arm": ObjectControl([1.0])}))
    assert "object 'arm' has 2 controls, got 1 values" in text


def test_a_legacy_list_that_does_not_fit_the_control_types_is_refused():
    control = ControlMessage(objects={"cart": ObjectControl([1.0, 2.0], field=ControlField.ANGLES)})
    assert "'angles' sent for object 'cart', but control 'wheel' is ANGULAR_VELOCITY_1D" in refusal(control)


def test_a_legacy_list_that_fits_passes():
    check_control(HANDSHAKE, ControlMessage(objects={"arm": ObjectControl([1.0, 2.0], field=ControlField.ANGLES)}))


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_values_are_named(bad):
    assert "control 'elbow' of object 'arm' is" in refusal(ControlMessage(objects={"arm": ObjectControl([0.0, bad])}))


def test_an_unknown_event_is_named():
    control = ControlMessage(objects={"arm": ObjectControl([0.0, 0.0], {"vacuum": True})})
    assert "unknown control event 'vacuum' of object 'arm'" in refusal(control)


def test_too_many_held_steps_are_refused():
    assert "exceeds the maximum" in refusal(ControlMessage(steps=_native.ControlLayout.MAX_STEPS + 1))
