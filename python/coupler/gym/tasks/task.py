"""What turns a scene into a learning problem: rewards, ends of episodes, starting states."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from coupler.controller.sensor_readings import SensorReadings


@runtime_checkable
class Task(Protocol):
    """A task reads the readings after each step; it never talks to the server.

    `reward(readings, action)` is the step's reward and `terminated(readings)`
    says the episode has reached an end state (success or failure).

    A task may also have `reset_state(rng) -> (qpos, qvel)`: the environment
    then starts every episode from that state (MuJoCo qpos and qvel of the
    whole model, either may be empty for the scene's own), drawn with the
    environment's seeded `np_random`.
    """

    def reward(self, readings: SensorReadings, action: np.ndarray) -> float: ...

    def terminated(self, readings: SensorReadings) -> bool: ...


class NoTask:
    """A scene with nothing to learn: reward 0, never terminated."""

    def reward(self, readings: SensorReadings, action: np.ndarray) -> float:
        return 0.0

    def terminated(self, readings: SensorReadings) -> bool:
        return False
