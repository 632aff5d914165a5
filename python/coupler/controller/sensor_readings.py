"""A SensorMessage read through the handshake: values by object and name."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from coupler.controller.camera_images import CameraImages, camera_images
from coupler.wire.errors import Error
from coupler.wire.messages import HandshakeMessage, ObjectSensors, Sensor, SensorMessage, ValueType
from coupler.wire.name_list import valid_names

if TYPE_CHECKING:
    from coupler.wire.flat_layout import FlatLayout, ObjectSlots, ReadingSlot

_NO_VALUES = np.zeros(0)


class SensorReadings:
    """Lookups raise coupler.Error naming what is missing.

    Backed either by a SensorMessage or, for an answer read straight into a
    flat array (`from_array`), by that array: the same lookups give the same
    values, and `message` is then built on first use.
    """

    def __init__(self, handshake: HandshakeMessage, message: SensorMessage, after_reset: bool = False) -> None:
        self.handshake = handshake
        self._message: SensorMessage | None = message
        self._flat: FlatLayout | None = None
        self._values = _NO_VALUES
        self._time = 0.0
        self._images: dict[str, CameraImages] | None = None
        # True when the server answered with Reset: the simulation was reset
        # from its side, and these are the readings after the reset.
        self.after_reset = after_reset

    @classmethod
    def from_array(
        cls, handshake: HandshakeMessage, flat: FlatLayout, values: np.ndarray, simulated_time: float
    ) -> SensorReadings:
        """Readings of `values`, filled in `flat.sensors.slots` order, which they keep and never change."""
        readings = cls.__new__(cls)
        readings.handshake = handshake
        readings._message = None
        readings._flat = flat
        readings._values = values
        readings._time = simulated_time
        readings._images = None
        readings.after_reset = False
        return readings

    @property
    def message(self) -> SensorMessage:
        if self._message is None:
            assert self._flat is not None
            self._message = self._flat.sensor_message(self._values, self._time)
        return self._message

    @property
    def values(self) -> np.ndarray | None:
        """Every reading in the flat layout's order when read straight into an array (`from_array`), else None."""
        return None if self._flat is None else self._values

    @property
    def images(self) -> dict[str, CameraImages]:
        """The images asked for (the "images" extension) by camera name: `images["overview"].rgb` and so on."""
        if self._images is None:
            self._images = camera_images(self.message.images) if self._flat is None else {}
        return self._images

    @property
    def time(self) -> float:
        return self.message.simulated_time if self._flat is None else self._time

    def _object(self, obj: str) -> ObjectSensors:
        try:
            return self.message.objects[obj]
        except KeyError:
            raise Error(f"no object named '{obj}' in the sensor message; "
                        f"{valid_names(list(self.message.objects))}") from None

    def _slots(self, obj: str) -> ObjectSlots:
        assert self._flat is not None
        try:
            return self._flat.objects[obj]
        except KeyError:
            raise Error(f"no object named '{obj}' in the sensor message; "
                        f"{valid_names(list(self._flat.objects))}") from None

    def _part(self, obj: str, part: str) -> Sequence[float]:
        """One per-joint vector (angles, angular_velocities, torques): a list, or a view of the array."""
        if self._flat is None:
            return getattr(self._object(obj), part)
        span = self._slots(obj).joint_parts.get(part)
        return self._values[0:0] if span is None else self._values[span[0] : span[1]]

    def angles(self, obj: str) -> np.ndarray:
        """Joint angles in the handshake's joint sensor order."""
        return np.array(self._part(obj, "angles"))

    def angular_velocities(self, obj: str) -> np.ndarray:
        return np.array(self._part(obj, "angular_velocities"))

    def torques(self, obj: str) -> np.ndarray:
        return np.array(self._part(obj, "torques"))

    def _joint_index(self, obj: str, joint: str) -> int:
        described = self.handshake.objects.get(obj)
        if described is None:
            raise Error(f"no object named '{obj}' in the handshake; {valid_names(list(self.handshake.objects))}")
        if joint not in described.joint_sensors:
            raise Error(f"object '{obj}' has no joint sensor named '{joint}'; {valid_names(described.joint_sensors)}")
        return described.joint_sensors.index(joint)

    def joint_types(self, obj: str, joint: str) -> list[ValueType]:
        """The types of a joint's readings, in the order angle, angular velocity, torque: for a slide joint of a
        coupler server, LINEAR_POSITION (m), LINEAR_VELOCITY (m/s), FORCE_1D (N)."""
        return self.handshake.objects[obj].types_of_joint(self._joint_index(obj, joint))

    def _joint(self, obj: str, joint: str, part: str, kind: str) -> float:
        values = self._part(obj, part)
        i = self._joint_index(obj, joint)
        if i >= len(values):
            raise Error(f"sensor message has no {kind} for joint '{joint}' of '{obj}'")
        return float(values[i])

    def angle(self, obj: str, joint: str) -> float:
        return self._joint(obj, joint, "angles", "angle")

    def angular_velocity(self, obj: str, joint: str) -> float:
        return self._joint(obj, joint, "angular_velocities", "angular velocity")

    def torque(self, obj: str, joint: str) -> float:
        return self._joint(obj, joint, "torques", "torque")

    def sensor(self, obj: str, name: str, value_type: ValueType | None = None) -> list[Sensor] | np.ndarray:
        """All readings of a named sensor, or with `value_type` the numbers of that one reading."""
        named = self._object(obj).sensors if self._flat is None else self._slots(obj).sensors
        readings = named.get(name)
        if readings is None:
            raise Error(f"object '{obj}' has no sensor named '{name}'; {valid_names(list(named))}")
        if value_type is None:
            return readings if self._flat is None else [self._sensor(reading) for reading in readings]
        return self._numbers(_of_type(readings, value_type, f"sensor '{name}' of '{obj}'"))

    def object_sensor(self, obj: str, value_type: ValueType) -> np.ndarray:
        """The object's own reading of the given type (POSITION, RPY, ...)."""
        readings = self._object(obj).object_sensors if self._flat is None else self._slots(obj).object_sensors
        return self._numbers(_of_type(readings, value_type, f"object '{obj}'"))

    def _sensor(self, reading: ReadingSlot) -> Sensor:
        return Sensor(reading.type, tuple(self._values[reading.start : reading.stop].tolist()))

    def _numbers(self, reading: Sensor | ReadingSlot) -> np.ndarray:
        if isinstance(reading, Sensor):
            return np.asarray(reading.value)
        return self._values[reading.start : reading.stop].copy()


def _of_type(readings: Sequence[Any], value_type: ValueType, where: str) -> Any:
    """The first reading (a Sensor or a ReadingSlot) of the type."""
    for reading in readings:
        if reading.type == value_type:
            return reading
    raise Error(f"{where} has no {value_type.name} reading")
