"""A SensorMessage read through the handshake, values by object and name: the C++ `coupler::SensorReadings`, bound."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from coupler import _native
from coupler.controller.camera_images import CameraImages
from coupler.wire.codec import encode
from coupler.wire.messages import HandshakeMessage, Sensor, SensorMessage, ValueType

if TYPE_CHECKING:
    from coupler.wire.flat_layout import FlatLayout


class SensorReadings:
    """Lookups raise coupler.Error naming what is missing.

    Backed either by a SensorMessage or, for an answer read straight into a
    flat array (`from_array`), by that array: the same lookups give the same
    values, and `message` is then built on first use.
    """

    def __init__(self, handshake: HandshakeMessage, message: SensorMessage, after_reset: bool = False) -> None:
        self._use(handshake, _native.SensorReadings.of_message(encode(handshake), encode(message), after_reset), message)

    @classmethod
    def from_array(
        cls, handshake: HandshakeMessage, flat: FlatLayout, values: np.ndarray, simulated_time: float
    ) -> SensorReadings:
        """Readings of `values`, filled in `flat.sensors.slots` order, which they copy."""
        return cls.of(handshake, _native.SensorReadings.of_array(flat.sensors, values, simulated_time))

    @classmethod
    def of(cls, handshake: HandshakeMessage, native: _native.SensorReadings,
           message: SensorMessage | None = None) -> SensorReadings:
        """The readings around a `coupler._native.SensorReadings` (`message`: its message, already converted)."""
        readings = cls.__new__(cls)
        readings._use(handshake, native, message)
        return readings

    def _use(self, handshake: HandshakeMessage, native: _native.SensorReadings, message: SensorMessage | None) -> None:
        self.handshake = handshake
        self._native = native
        self._message = message
        self._images: dict[str, CameraImages] | None = None
        # True when the server answered with Reset: the simulation was reset
        # from its side, and these are the readings after the reset.
        self.after_reset: bool = native.after_reset

    @property
    def message(self) -> SensorMessage:
        if self._message is None:
            self._message = self._native.message()
        return self._message

    @property
    def values(self) -> np.ndarray | None:
        """Every reading in the flat layout's order when read straight into an array (`from_array`), else None."""
        return self._native.values

    @property
    def images(self) -> dict[str, CameraImages]:
        """The images asked for (the "images" extension) by camera name: `images["overview"].rgb` and so on."""
        if self._images is None:
            self._images = {camera: CameraImages(time, **pixels) for camera, (time, pixels) in self._native.images().items()}
        return self._images

    @property
    def time(self) -> float:
        return self._native.time

    def angles(self, obj: str) -> np.ndarray:
        """Joint angles in the handshake's joint sensor order."""
        return self._native.angles(obj)

    def angular_velocities(self, obj: str) -> np.ndarray:
        return self._native.angular_velocities(obj)

    def torques(self, obj: str) -> np.ndarray:
        return self._native.torques(obj)

    def joint_types(self, obj: str, joint: str) -> list[ValueType]:
        """The types of a joint's readings, in the order angle, angular velocity, torque: for a slide joint of a
        coupler server, LINEAR_POSITION (m), LINEAR_VELOCITY (m/s), FORCE_1D (N)."""
        return [ValueType(t) for t in self._native.joint_types(obj, joint)]

    def angle(self, obj: str, joint: str) -> float:
        return self._native.angle(obj, joint)

    def angular_velocity(self, obj: str, joint: str) -> float:
        return self._native.angular_velocity(obj, joint)

    def torque(self, obj: str, joint: str) -> float:
        return self._native.torque(obj, joint)

    def sensor(self, obj: str, name: str, value_type: ValueType | None = None) -> list[Sensor] | np.ndarray:
        """All readings of a named sensor, or with `value_type` the numbers of that one reading."""
        if value_type is None:
            return [Sensor(ValueType(t), value) for t, value in self._native.sensor(obj, name)]
        return self._native.sensor_value(obj, name, int(value_type))

    def object_sensor(self, obj: str, value_type: ValueType) -> np.ndarray:
        """The object's own reading of the given type (POSITION, RPY, ...)."""
        return self._native.object_sensor(obj, int(value_type))
