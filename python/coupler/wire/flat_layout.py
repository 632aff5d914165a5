"""A handshake's Controls and SensorMessages as flat NumPy arrays.

A simulation that reads its state into one float64 array and takes its
controls from a few arrays can be served without building a message per step
(`coupler.serve.native_responder`), and a controller can send its Controls and read
the answers the same way (`coupler.controller.session`). The order of the numbers is
defined once, by the C++ layouts (`coupler::SensorLayout`,
`coupler::ControlLayout`, here through `coupler._native`), which also turn
the arrays into frames and frames into the arrays; this module says where
each object's readings sit, and reads the arrays as a message.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coupler import _native
from coupler.wire.codec import decode, encode
from coupler.wire.messages import HandshakeMessage, SensorMessage, ValueType

__all__ = ["FlatLayout", "ObjectSlots", "ReadingSlot"]

_JOINT_PARTS = ("angles", "angular_velocities", "torques")


@dataclass(frozen=True)
class ReadingSlot:
    """One reading of an object sensor or a named sensor, at [start, stop) of the array."""

    type: ValueType
    start: int
    stop: int


@dataclass(frozen=True)
class ObjectSlots:
    """Where one object's readings sit in the sensor array, as [start, stop) spans.

    `joint_parts` has the per-joint vectors the handshake declares (keys
    "angles", "angular_velocities", "torques"); `sensors` every named sensor,
    in name order, each with its readings in order.
    """

    joint_parts: dict[str, tuple[int, int]]
    forces: tuple[int, int] | None
    object_sensors: tuple[ReadingSlot, ...]
    sensors: dict[str, tuple[ReadingSlot, ...]]


class FlatLayout:
    """The flat arrays of one handshake, and their conversion to and from messages.

    `sensors` (`_native.SensorLayout`) lists where each reading sits
    (`sensors.slots`, and per object in `objects`), encodes `sensors.values`
    and reads a received SensorMessage frame into a new array; `controls`
    (`_native.ControlLayout`) reads a Control frame into `controls.values`,
    `values_set` (per object), `events_set` and `events_on` (per event).
    `value_object` gives each control value's object, to expand `values_set`
    to the values.
    """

    def __init__(self, handshake: HandshakeMessage) -> None:
        frame = encode(handshake)
        self.sensors = _native.SensorLayout(frame)
        self.controls = _native.ControlLayout(frame)
        # Each control value's object, as an index into values_set.
        self.value_object = np.repeat(np.arange(len(self.controls.objects)), [o.size for o in self.controls.objects])
        self.objects = self._object_slots(handshake)

    def _object_slots(self, handshake: HandshakeMessage) -> dict[str, ObjectSlots]:
        joint_parts: dict[str, dict[str, tuple[int, int]]] = {name: {} for name in sorted(handshake.objects)}
        forces: dict[str, tuple[int, int]] = {}
        object_sensors: dict[str, list[ReadingSlot]] = {name: [] for name in joint_parts}
        sensors = {name: {sensor: [] for sensor in sorted(handshake.objects[name].sensors)} for name in joint_parts}
        for slot in self.sensors.slots:
            span = (slot.offset, slot.offset + slot.size)
            if slot.part in _JOINT_PARTS:
                joint_parts[slot.object][slot.part] = span
            elif slot.part == "forces":
                forces[slot.object] = span
            else:
                reading = ReadingSlot(ValueType(slot.type), *span)
                target = object_sensors[slot.object] if slot.part == "object_sensors" else sensors[slot.object][slot.sensor]
                target.append(reading)
        return {
            name: ObjectSlots(
                joint_parts=joint_parts[name],
                forces=forces.get(name),
                object_sensors=tuple(object_sensors[name]),
                sensors={sensor: tuple(readings) for sensor, readings in sensors[name].items()},
            )
            for name in joint_parts
        }

    def sensor_message(self, simulated_time: float) -> SensorMessage:
        """The SensorMessage of `sensors.values` at this time: the frame `sensors.encode` writes, decoded."""
        return decode(self.sensors.encode(simulated_time))
