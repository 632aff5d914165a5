"""Arm pick: grasp the box and lift it off the table."""

from __future__ import annotations

import numpy as np

from coupler.controller.sensor_readings import SensorReadings
from coupler.gym.tasks.arm_reach import BOX, home_with_box_moved, tool_to_box
from coupler.wire.messages import ValueType

# The box rests with its centre 2.5 cm above the table top (z = 0.75 m).
BOX_REST_HEIGHT = 0.775


class ArmPick:
    """Reward: minus the tool-to-box distance, plus `lift_weight` per metre the box is above its rest
    height; terminated once the box is `lifted` metres up."""

    def __init__(self, lifted: float = 0.1, lift_weight: float = 10.0, box_spread: float = 0.05) -> None:
        self.lifted = lifted
        self.lift_weight = lift_weight
        self.box_spread = box_spread

    def reset_state(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """The home pose, the box anywhere within `box_spread` m of its place."""
        return home_with_box_moved(rng, self.box_spread)

    def _height(self, readings: SensorReadings) -> float:
        return float(readings.object_sensor(BOX, ValueType.POSITION)[2]) - BOX_REST_HEIGHT

    def reward(self, readings: SensorReadings, action: np.ndarray) -> float:
        reach = float(np.linalg.norm(tool_to_box(readings)))
        return -reach + self.lift_weight * max(self._height(readings), 0.0)

    def terminated(self, readings: SensorReadings) -> bool:
        return self._height(readings) > self.lifted
