"""Labels of every index of an environment's observation and action: "object/reading" names in array order."""

from __future__ import annotations

from coupler.gym.spaces import ActionLayout
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage, ValueType

_JOINT_PART_NAMES = {"angles": "position", "angular_velocities": "velocity", "torques": "effort"}
_COMPONENTS = {ValueType.POSITION: ("x", "y", "z"), ValueType.RPY: ("roll", "pitch", "yaw")}


def _components(value_type: int, size: int) -> list[str]:
    """Names of a reading's numbers: roll, pitch, yaw of an RPY; x, y, z of any other vector of 3."""
    named = _COMPONENTS.get(ValueType(value_type)) if value_type in ValueType._value2member_map_ else None
    if named is None and size == 3:
        named = _COMPONENTS[ValueType.POSITION]
    if named is not None and len(named) == size:
        return list(named)
    return [""] if size == 1 else [str(k) for k in range(size)]


def observation_names(handshake: HandshakeMessage, flat: FlatLayout) -> list[str]:
    """One name per number of the flat sensor array, such as "arm/joint1 position" or "box/position x"."""
    names = [""] * len(flat.sensors.values)
    for slot in flat.sensors.slots:
        described = handshake.objects[slot.object]
        at = range(slot.offset, slot.offset + slot.size)
        if slot.part in _JOINT_PART_NAMES:
            for i, joint in zip(at, described.joint_sensors, strict=False):
                names[i] = f"{slot.object}/{joint} {_JOINT_PART_NAMES[slot.part]}"
            continue
        what = slot.sensor if slot.part == "sensors" else slot.part
        kind = ValueType(slot.type).name.lower() if slot.type in ValueType._value2member_map_ else str(slot.type)
        for i, component in zip(at, _components(slot.type, slot.size), strict=True):
            label = f"{slot.object}/{what} {kind}" if slot.part == "sensors" else f"{slot.object}/{kind}"
            names[i] = f"{label} {component}".rstrip()
    return names


def action_names(actions: ActionLayout) -> list[str]:
    """One name per action dimension: "object/control" for each value, then "object/event" for each event."""
    return actions.value_names + [f"{obj}/{event}" for obj, event in actions.event_names]
