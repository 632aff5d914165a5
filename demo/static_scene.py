"""A fixed scene without physics, for transport tests and benchmarks.

Two robots and a box carry every value type the protocol has, so a frame of
this scene exercises the whole codec. Angle-controlled joints report the
angle last commanded; everything else reads a fixed, recognisable value.
Simulated time advances by one time step per step.
"""

from __future__ import annotations

from coupler.messages import (
    ControlMessage,
    HandshakeMessage,
    ObjectDescription,
    ObjectSensors,
    Sensor,
    SensorMessage,
    ValueType as V,
)

TIME_STEP = 0.001

_ARM_JOINTS = [f"joint{i}" for i in range(1, 8)]
_CART_JOINTS = ["wheel_left", "wheel_right", "turret", "lift"]


def _description() -> dict[str, ObjectDescription]:
    return {
        "arm": ObjectDescription(
            controls=list(_ARM_JOINTS),
            control_types=[V.ANGLE] * len(_ARM_JOINTS),
            joint_sensors=list(_ARM_JOINTS),
            joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D, V.FORCE_3D],
            control_events={"gripper": V.ACTIVATED},
            sensors={
                "wrist_ft": [V.FORCE_3D, V.TORQUE_3D],
                "imu": [V.ACCELERATION_3D, V.ANGULAR_VELOCITY_3D, V.ANGULAR_ACCELERATION_3D],
                "gripper_closed": [V.ACTIVATED],
            },
            object_sensors=[V.POSITION, V.RPY],
        ),
        "cart": ObjectDescription(
            controls=list(_CART_JOINTS),
            control_types=[V.ANGULAR_VELOCITY_1D, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D, V.FORCE_1D],
            joint_sensors=list(_CART_JOINTS),
            joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D],
            sensors={"lift_load": [V.FORCE_1D], "base": [V.POSITION, V.VELOCITY_3D]},
            object_sensors=[V.POSITION, V.RPY],
        ),
        "box": ObjectDescription(object_sensors=[V.POSITION, V.RPY]),
    }


def _reading(value_type: V, seed: float) -> Sensor:
    if value_type == V.ACTIVATED:
        return Sensor(value_type, (0.0,))
    return Sensor(value_type, tuple(seed + 0.1 * i for i in range(value_type.width)))


class StaticScene:
    """A `coupler.simulation.Simulation` that answers from a fixed description."""

    def __init__(self, time_step: float = TIME_STEP) -> None:
        self._handshake = HandshakeMessage(objects=_description(), time_step=time_step)
        self.reset()

    def handshake(self) -> HandshakeMessage:
        return self._handshake

    def reset(self) -> None:
        self._time = 0.0
        self._steps = 0
        self._commanded = {name: [0.0] * len(d.controls) for name, d in self._handshake.objects.items()}
        self._events = {name: dict.fromkeys(d.control_events, False) for name, d in self._handshake.objects.items()}

    def apply(self, control: ControlMessage) -> None:
        for name, sent in control.objects.items():
            self._commanded[name] = list(sent.values)
            self._events[name].update(sent.events)

    def step(self, steps: int = 1) -> None:
        self._steps += steps
        self._time = self._steps * self._handshake.time_step

    def sensors(self) -> SensorMessage:
        objects = {}
        for index, (name, described) in enumerate(self._handshake.objects.items()):
            joints = len(described.joint_sensors)
            commanded = self._commanded[name]
            types = described.joint_sensor_types
            angles = [
                commanded[i] if i < len(commanded) and described.control_types[i] == V.ANGLE else 0.0
                for i in range(joints)
            ]
            named = {
                sensor: [_reading(t, float(index + k)) for k, t in enumerate(value_types)]
                for sensor, value_types in described.sensors.items()
            }
            if "gripper" in self._events[name]:
                named["gripper_closed"] = [Sensor(V.ACTIVATED, (float(self._events[name]["gripper"]),))]
            objects[name] = ObjectSensors(
                angles=angles if V.ANGLE in types else [],
                angular_velocities=[0.0] * joints if V.ANGULAR_VELOCITY_1D in types else [],
                torques=[1.5] * joints if V.TORQUE_1D in types else [],
                forces=[(0.0, 0.0, 9.81)] * joints if V.FORCE_3D in types else [],
                object_sensors=[_reading(t, float(index)) for t in described.object_sensors],
                sensors=named,
            )
        return SensorMessage(objects=objects, simulated_time=self._time)
