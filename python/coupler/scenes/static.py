"""A fixed scene without physics, for transport tests and benchmarks.

Two robots and a box carry every value type the protocol has, so a frame of
this scene exercises the whole codec. Angle-controlled joints report the
angle last commanded and `gripper_closed` the last gripper event; everything
else reads a fixed, recognisable value. Simulated time advances by one time
step per step.
"""

from __future__ import annotations

import numpy as np

from coupler import _native
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage, ObjectDescription, Range
from coupler.wire.messages import ValueType as V
from coupler.serve.hot_path import HotPathParts
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
    """An `ArraySimulation` that answers from a fixed description.

    Its controls, readings and clock are C++ objects (`coupler._native`): the
    native hot path (`coupler.serve.hot_path`) steps and reads it without
    Python, through the very objects the Python path uses.
    """

    def __init__(self, time_step: float = TIME_STEP) -> None:
        self._handshake = HandshakeMessage(objects=_description(), time_step=time_step)
        self.flat = FlatLayout(self._handshake)
        self._clock = _native.CountedSteps(time_step)
        self._lay_out_readings()
        self.reset()

    def _lay_out_readings(self) -> None:
        """The fixed readings, and where the commanded angles and the gripper state go."""
        controls = {o.name: o for o in self.flat.controls.objects}
        seeds = {name: float(index) for index, name in enumerate(self._handshake.objects)}
        commanded = self.flat.controls.size
        # The last commanded values, then each event's last state (1 on, 0 off).
        self._state = np.zeros(commanded + self.flat.controls.event_count)
        self._fixed = np.zeros(self.flat.sensors.size)
        fixed = np.ones(self.flat.sensors.size, dtype=bool)
        state_dst, state_src = [], []
        for slot in self.flat.sensors.slots:
            described = self._handshake.objects[slot.object]
            placed = controls[slot.object]
            span = slice(slot.offset, slot.offset + slot.size)
            if slot.part == "angles":
                for i, control_type in enumerate(described.control_types[: slot.size]):
                    if control_type == V.ANGLE:
                        state_dst.append(slot.offset + i)
                        state_src.append(placed.offset + i)
            elif slot.part == "torques":
                self._fixed[span] = 1.5
            elif slot.part == "forces":
                self._fixed[span] = [0.0, 0.0, 9.81] * (slot.size // 3)
            elif slot.part == "object_sensors":
                self._fixed[span] = _reading(V(slot.type), seeds[slot.object])
            elif slot.part == "sensors" and slot.sensor == "gripper_closed" and "gripper" in placed.events:
                state_dst.append(slot.offset)
                state_src.append(commanded + placed.event_offset + placed.events.index("gripper"))
            elif slot.part == "sensors":
                self._fixed[span] = _reading(V(slot.type), seeds[slot.object] + slot.index)
        fixed[state_dst] = False
        self._gather = _native.SensorGather(self.flat.sensors.size)
        places = np.flatnonzero(fixed).tolist()
        self._gather.add_copies(self._fixed, places, places)
        self._gather.add_copies(self._state, state_dst, state_src)
        # Values are taken as sent (no range: nothing is clamped), events as 1 or 0.
        values = [_native.ScatteredValue(object=int(k), place=i, scale=1.0, low=-np.inf, high=np.inf)
                  for i, k in enumerate(self.flat.value_object)]
        events = [_native.ScatteredEvent(place=commanded + e, off=0.0, on=1.0)
                  for e in range(self.flat.controls.event_count)]
        self._scatter = _native.ControlScatter(self._state, len(self.flat.controls.objects), values, events)

    def handshake(self) -> HandshakeMessage:
        return self._handshake

    def reset(self) -> None:
        self._clock.reset()
        self._state[:] = 0.0

    def apply_values(
        self, values: np.ndarray, values_set: np.ndarray, events_set: np.ndarray, events_on: np.ndarray
    ) -> None:
        self._scatter.apply(values, values_set, events_set, events_on)

    def step(self, steps: int = 1) -> None:
        self._clock.step(steps)

    def sensor_values(self, out: np.ndarray) -> float:
        self._gather.gather(out)
        return self._clock.time

    # The native hot path (coupler.serve.hot_path): the same objects, stepped and read from C++.
    def settle(self) -> None:
        """Nothing to compute before reading."""

    def hot_path_parts(self) -> HotPathParts:
        return HotPathParts(self._scatter, self._gather, self._clock)

    def refuse_values(self, values: np.ndarray, values_set: np.ndarray) -> None:
        """Nothing to refuse: values are taken as sent."""

    def hot_path_served(self, clamped: int, first_clamped: list[int], failed: bool) -> None:
        """Nothing to count: the static scene clamps nothing, and fails only as its C++ objects do."""
