"""A handshake's Controls and SensorMessages as flat NumPy arrays.

A simulation that reads its state into one float64 array and takes its
controls from a few arrays can be served without building a message per step
(`coupler.native_responder`). The order of the numbers is defined once, by the
C++ layouts (`coupler::SensorLayout`, `coupler::ControlLayout`, here through
`coupler._native`); this module only converts between those arrays and the
message dataclasses, for the requests that do go through messages.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coupler import _native
from coupler.codec import encode
from coupler.messages import ControlMessage, HandshakeMessage, ObjectSensors, Sensor, SensorMessage, ValueType

__all__ = ["FlatLayout"]

_JOINT_PARTS = ("angles", "angular_velocities", "torques")


@dataclass(frozen=True)
class _Reading:
    """One reading of an object sensor (sensor is None) or a named sensor, at [start, stop) of the array."""

    sensor: str | None
    type: ValueType
    start: int
    stop: int


class FlatLayout:
    """The flat arrays of one handshake, and their conversion to and from messages.

    `sensors` (`_native.SensorLayout`) lists where each reading sits
    (`sensors.slots`) and encodes `sensors.values`; `controls`
    (`_native.ControlLayout`) reads a Control into `controls.values`,
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
        self._control_objects = {o.name: (k, o) for k, o in enumerate(self.controls.objects)}
        self._event_places = {
            o.name: {event: o.event_offset + i for i, event in enumerate(o.events)} for o in self.controls.objects
        }
        # Every object and named sensor, each with the slots that fill it.
        self._joint_parts: dict[str, list[tuple[str, int, int]]] = {name: [] for name in sorted(handshake.objects)}
        self._forces: dict[str, tuple[int, int]] = {}
        self._readings: dict[str, list[_Reading]] = {name: [] for name in self._joint_parts}
        self._named = {name: sorted(handshake.objects[name].sensors) for name in self._joint_parts}
        for slot in self.sensors.slots:
            stop = slot.offset + slot.size
            if slot.part in _JOINT_PARTS:
                self._joint_parts[slot.object].append((slot.part, slot.offset, stop))
            elif slot.part == "forces":
                self._forces[slot.object] = (slot.offset, stop)
            else:
                sensor = slot.sensor if slot.part == "sensors" else None
                self._readings[slot.object].append(_Reading(sensor, ValueType(slot.type), slot.offset, stop))

    def sensor_message(self, values: np.ndarray, simulated_time: float) -> SensorMessage:
        """The SensorMessage of an array filled in `sensors.slots` order (ACTIVATED readings as 1.0 or 0.0)."""
        numbers = values.tolist()
        objects = {}
        for name, joint_parts in self._joint_parts.items():
            readings = ObjectSensors(sensors={sensor: [] for sensor in self._named[name]})
            for part, start, stop in joint_parts:
                setattr(readings, part, numbers[start:stop])
            if name in self._forces:
                start, stop = self._forces[name]
                readings.forces = [tuple(numbers[i : i + 3]) for i in range(start, stop, 3)]
            for r in self._readings[name]:
                value = tuple(numbers[r.start : r.stop])
                if r.type == ValueType.ACTIVATED:
                    value = (1.0 if value[0] != 0.0 else 0.0,)
                target = readings.object_sensors if r.sensor is None else readings.sensors[r.sensor]
                target.append(Sensor(r.type, value))
            objects[name] = readings
        return SensorMessage(objects=objects, simulated_time=simulated_time)

    def read_control(self, control: ControlMessage) -> None:
        """Write a Control already checked against the handshake to the `controls` arrays.

        As `controls.read` does for a native request; an object whose values
        list is empty (events only) is left as it is, and so marked unset.
        """
        c = self.controls
        c.values_set[:] = False
        c.events_set[:] = False
        for name, sent in control.objects.items():
            k, described = self._control_objects[name]
            if sent.values:
                c.values[described.offset : described.offset + described.size] = sent.values
                c.values_set[k] = True
            places = self._event_places[name]
            for event, on in sent.events.items():
                c.events_set[places[event]] = True
                c.events_on[places[event]] = on
