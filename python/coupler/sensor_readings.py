"""A SensorMessage read through the handshake: values by object and name."""

from __future__ import annotations

import numpy as np

from coupler.errors import Error
from coupler.messages import HandshakeMessage, ObjectSensors, Sensor, SensorMessage, ValueType


class SensorReadings:
    """Lookups raise coupler.Error naming what is missing."""

    def __init__(self, handshake: HandshakeMessage, message: SensorMessage, after_reset: bool = False) -> None:
        self.handshake = handshake
        self.message = message
        # True when the server answered with Reset: the simulation was reset
        # from its side, and these are the readings after the reset.
        self.after_reset = after_reset

    @property
    def time(self) -> float:
        return self.message.simulated_time

    def _object(self, obj: str) -> ObjectSensors:
        try:
            return self.message.objects[obj]
        except KeyError:
            raise Error(f"no object named '{obj}' in the sensor message") from None

    def angles(self, obj: str) -> np.ndarray:
        """Joint angles in the handshake's joint sensor order."""
        return np.asarray(self._object(obj).angles)

    def angular_velocities(self, obj: str) -> np.ndarray:
        return np.asarray(self._object(obj).angular_velocities)

    def torques(self, obj: str) -> np.ndarray:
        return np.asarray(self._object(obj).torques)

    def _joint(self, values: list[float], obj: str, joint: str, kind: str) -> float:
        described = self.handshake.objects.get(obj)
        if described is None or joint not in described.joint_sensors:
            raise Error(f"object '{obj}' has no joint sensor named '{joint}'")
        i = described.joint_sensors.index(joint)
        if i >= len(values):
            raise Error(f"sensor message has no {kind} for joint '{joint}' of '{obj}'")
        return values[i]

    def angle(self, obj: str, joint: str) -> float:
        return self._joint(self._object(obj).angles, obj, joint, "angle")

    def angular_velocity(self, obj: str, joint: str) -> float:
        return self._joint(self._object(obj).angular_velocities, obj, joint, "angular velocity")

    def torque(self, obj: str, joint: str) -> float:
        return self._joint(self._object(obj).torques, obj, joint, "torque")

    def sensor(self, obj: str, name: str, value_type: ValueType | None = None) -> list[Sensor] | np.ndarray:
        """All readings of a named sensor, or with `value_type` the numbers of that one reading."""
        readings = self._object(obj).sensors.get(name)
        if readings is None:
            raise Error(f"object '{obj}' has no sensor named '{name}'")
        if value_type is None:
            return readings
        return _of_type(readings, value_type, f"sensor '{name}' of '{obj}'")

    def object_sensor(self, obj: str, value_type: ValueType) -> np.ndarray:
        """The object's own reading of the given type (POSITION, RPY, ...)."""
        return _of_type(self._object(obj).object_sensors, value_type, f"object '{obj}'")


def _of_type(readings: list[Sensor], value_type: ValueType, where: str) -> np.ndarray:
    for reading in readings:
        if reading.type == value_type:
            return np.asarray(reading.value)
    raise Error(f"{where} has no {value_type.name} reading")
