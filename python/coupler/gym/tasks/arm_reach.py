"""Arm reach: bring the arm's tool point (the "tcp" site) to the box."""

from __future__ import annotations

import numpy as np

from coupler.controller.sensor_readings import SensorReadings
from coupler.wire.messages import ValueType

ARM, TOOL_SENSOR, BOX = "arm", "tcp", "box"

# The arm scene's "home" keyframe: 7 arm joints, 2 fingers, then the box's
# free joint (position, quaternion).
HOME_QPOS = np.array([0, -0.785398, 0, -2.356194, 0, 1.570796, 0.785398, 0, 0, 0.05, 0.1, 0.775, 1, 0, 0, 0])
BOX_XY = slice(9, 11)


def home_with_box_moved(rng: np.random.Generator, spread: float) -> tuple[np.ndarray, np.ndarray]:
    """The home state with the box moved on the table by up to `spread` metres in x and y."""
    qpos = HOME_QPOS.copy()
    qpos[BOX_XY] += rng.uniform(-spread, spread, size=2)
    return qpos, np.zeros(0)


def tool_to_box(readings: SensorReadings) -> np.ndarray:
    """The vector from the tool point to the box's centre, in metres."""
    tool = readings.sensor(ARM, TOOL_SENSOR, ValueType.POSITION)
    box = readings.object_sensor(BOX, ValueType.POSITION)
    return np.asarray(box) - np.asarray(tool)


class ArmReach:
    """Reward: minus the tool-to-box distance (m); terminated within `reached` metres of it."""

    def __init__(self, reached: float = 0.03, box_spread: float = 0.1) -> None:
        self.reached = reached
        self.box_spread = box_spread

    def reset_state(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The home pose, the box anywhere within `box_spread` m of its place."""
        return home_with_box_moved(rng, self.box_spread)

    def reward(self, readings: SensorReadings, action: np.ndarray) -> float:
        return -float(np.linalg.norm(tool_to_box(readings)))

    def terminated(self, readings: SensorReadings) -> bool:
        return bool(np.linalg.norm(tool_to_box(readings)) < self.reached)
