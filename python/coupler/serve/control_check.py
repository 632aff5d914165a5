"""Checks a ControlMessage against the handshake it must match.

A Control that fails is answered with an ErrorMessage and changes nothing in
the simulation, so every check runs before any value is applied.
"""

from __future__ import annotations

import math

from coupler import limits
from coupler.wire.errors import ProtocolError
from coupler.wire.peer_text import shown
from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    HandshakeMessage,
    ValueType,
)

# The single type each deprecated value list stands for.
_LEGACY_FIELD_TYPES = {
    ControlField.ANGLES: ValueType.ANGLE,
    ControlField.ANGULAR_VELOCITIES: ValueType.ANGULAR_VELOCITY_1D,
    ControlField.TORQUES: ValueType.TORQUE_1D,
}

# Holding controls for more steps than this in one request would stall the
# server for every other purpose; a controller wanting more sends again.
MAX_STEPS_PER_CONTROL = limits.MAX_STEPS_PER_CONTROL


def _mismatch(text: str) -> ProtocolError:
    return ProtocolError(f"control does not match the handshake: {text}", ErrorCode.CONTROL_MISMATCH)


def check_control(handshake: HandshakeMessage, control: ControlMessage) -> None:
    """Raise ProtocolError (CONTROL_MISMATCH) naming the first problem found, in object and event name order.

    Objects left out keep their last controls; an object that is present
    must carry one finite value per declared control, in a value list whose
    type fits, and only declared events. The C++ coupler::ControlLayout
    checks the same, with the same texts, for the native server path.
    """
    if control.steps > MAX_STEPS_PER_CONTROL:
        raise _mismatch(f"steps {control.steps} exceeds the maximum of {MAX_STEPS_PER_CONTROL}")
    for name, sent in sorted(control.objects.items()):
        described = handshake.objects.get(name)
        if described is None:
            scene = ", ".join(f"'{known}'" for known in sorted(handshake.objects)) or "no objects"
            raise _mismatch(f"unknown object '{shown(name)}' (the scene has {scene})")
        if len(sent.values) != len(described.controls):
            raise _mismatch(
                f"object '{name}' has {len(described.controls)} controls, got {len(sent.values)} values"
            )
        legacy_type = _LEGACY_FIELD_TYPES.get(sent.field)
        if legacy_type is not None:
            for control_name, control_type in zip(described.controls, described.control_types):
                if control_type != legacy_type:
                    raise _mismatch(
                        f"'{sent.field.value}' sent for object '{name}', but control '{control_name}' "
                        f"is {control_type.name}"
                    )
        for control_name, value in zip(described.controls, sent.values):
            if not math.isfinite(value):
                raise _mismatch(f"control '{control_name}' of object '{name}' is {value}")
        for event in sorted(sent.events):
            if event not in described.control_events:
                raise _mismatch(f"unknown control event '{shown(event)}' of object '{name}'")
