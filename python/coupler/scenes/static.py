"""A fixed scene without physics, for transport tests and benchmarks.

Two robots and a box carry every value type the protocol has, so a frame of
this scene exercises the whole codec. Angle-controlled joints report the
angle last commanded and `gripper_closed` the last gripper event; everything
else reads a fixed, recognisable value. Simulated time advances by one time
step per step.
"""

from __future__ import annotations

import numpy as np

from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage, ObjectDescription, Range
from coupler.wire.messages import ValueType as V
from coupler.serve.simulation import MessagesFromArrays

TIME_STEP = 0.001

_ARM_JOINTS = [f"joint{i}" for i in range(1, 8)]
_CART_JOINTS = ["wheel_left", "wheel_right", "turret", "lift"]

# Panda-class joint limits (rad); the arm's angle controls take the same range.
_ARM_LIMITS = [
    Range(-2.8973, 2.8973, True),
    Range(-1.7628, 1.7628, True),
    Range(-2.8973, 2.8973, True),
    Range(-3.0718, -0.0698, True),
    Range(-2.8973, 2.8973, True),
    Range(-0.0175, 3.7525, True),
    Range(-2.8973, 2.8973, True),
]
# Wheel speeds (rad/s), turret torque (N m), lift force (N); the wheels and
# the turret turn without end, the lift travels 0.3 m.
_CART_CONTROL_RANGES = [Range(-10.0, 10.0, True), Range(-10.0, 10.0, True), Range(-20.0, 20.0, True),
                        Range(-100.0, 100.0, True)]
_CART_LIMITS = [Range(), Range(), Range(), Range(0.0, 0.3, True)]


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
            control_ranges=list(_ARM_LIMITS),
            joint_limits=list(_ARM_LIMITS),
        ),
        "cart": ObjectDescription(
            controls=list(_CART_JOINTS),
            control_types=[V.ANGULAR_VELOCITY_1D, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D, V.FORCE_1D],
            joint_sensors=list(_CART_JOINTS),
            joint_sensor_types=[V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D],
            sensors={"lift_load": [V.FORCE_1D], "base": [V.POSITION, V.VELOCITY_3D]},
            object_sensors=[V.POSITION, V.RPY],
            control_ranges=list(_CART_CONTROL_RANGES),
            joint_limits=list(_CART_LIMITS),
        ),
        "box": ObjectDescription(object_sensors=[V.POSITION, V.RPY]),
    }


def _reading(value_type: V, seed: float) -> list[float]:
    if value_type == V.ACTIVATED:
        return [0.0]
    return [seed + 0.1 * i for i in range(value_type.width)]


class StaticScene(MessagesFromArrays):
    """An `ArraySimulation` that answers from a fixed description."""

    def __init__(self, time_step: float = TIME_STEP) -> None:
        self._handshake = HandshakeMessage(objects=_description(), time_step=time_step)
        self.flat = FlatLayout(self._handshake)
        self._lay_out_readings()
        self.reset()

    def _lay_out_readings(self) -> None:
        """The fixed readings, and where the commanded angles and the gripper state go."""
        controls = {o.name: o for o in self.flat.controls.objects}
        seeds = {name: float(index) for index, name in enumerate(self._handshake.objects)}
        self._fixed = np.zeros(self.flat.sensors.size)
        angle_dst, angle_src, gripper_dst, gripper_src = [], [], [], []
        for slot in self.flat.sensors.slots:
            described = self._handshake.objects[slot.object]
            placed = controls[slot.object]
            span = slice(slot.offset, slot.offset + slot.size)
            if slot.part == "angles":
                for i, control_type in enumerate(described.control_types[: slot.size]):
                    if control_type == V.ANGLE:
                        angle_dst.append(slot.offset + i)
                        angle_src.append(placed.offset + i)
            elif slot.part == "torques":
                self._fixed[span] = 1.5
            elif slot.part == "forces":
                self._fixed[span] = [0.0, 0.0, 9.81] * (slot.size // 3)
            elif slot.part == "object_sensors":
                self._fixed[span] = _reading(V(slot.type), seeds[slot.object])
            elif slot.part == "sensors" and slot.sensor == "gripper_closed" and "gripper" in placed.events:
                gripper_dst.append(slot.offset)
                gripper_src.append(placed.event_offset + placed.events.index("gripper"))
            elif slot.part == "sensors":
                self._fixed[span] = _reading(V(slot.type), seeds[slot.object] + slot.index)
        self._angle_dst = np.array(angle_dst, dtype=np.intp)
        self._angle_src = np.array(angle_src, dtype=np.intp)
        self._gripper_dst = np.array(gripper_dst, dtype=np.intp)
        self._gripper_src = np.array(gripper_src, dtype=np.intp)

    def handshake(self) -> HandshakeMessage:
        return self._handshake

    def reset(self) -> None:
        self._time = 0.0
        self._steps = 0
        self._commanded = np.zeros(self.flat.controls.size)
        self._events = np.zeros(self.flat.controls.event_count, dtype=bool)

    def apply_values(
        self, values: np.ndarray, values_set: np.ndarray, events_set: np.ndarray, events_on: np.ndarray
    ) -> None:
        taken = values_set[self.flat.value_object]
        self._commanded[taken] = values[taken]
        self._events[events_set] = events_on[events_set]

    def step(self, steps: int = 1) -> None:
        self._steps += steps
        self._time = self._steps * self._handshake.time_step

    def sensor_values(self, out: np.ndarray) -> float:
        out[:] = self._fixed
        out[self._angle_dst] = self._commanded[self._angle_src]
        out[self._gripper_dst] = self._events[self._gripper_src]
        return self._time
