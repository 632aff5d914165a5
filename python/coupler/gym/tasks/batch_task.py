"""Batch tasks: a task that computes observations, rewards and ends for all worlds' sensor rows at once."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np
from gymnasium import spaces

from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage


@runtime_checkable
class BatchTask(Protocol):
    """A task with its own scene, spaces and labels, whose terms are NumPy over rows of sensor arrays.

    `bind` is called once with the served handshake; then `control_values`
    turns rows of actions into rows of control values, `observations` rows
    of sensor arrays into rows of observations, `step_terms(before, after,
    actions)` gives rows of rewards, terminations and info values, and
    `reset_infos` the info values of a reset. `reset_state(rng)` draws an
    episode's start.

    A task may also name `world_data`, arrays of MuJoCo's mjData read right
    after each step (`coupler serve --world-data`): its rows are then each
    world's sensor array followed by those arrays.
    """

    scene: str
    frame_skip: int
    action_space: spaces.Box
    observation_space: spaces.Box
    observation_names: list[str]
    action_names: list[str]

    def bind(self, handshake: HandshakeMessage, flat: FlatLayout) -> None: ...

    def control_values(self, actions: np.ndarray) -> np.ndarray: ...

    def reset_state(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]: ...

    def observations(self, sensors: np.ndarray) -> np.ndarray: ...

    def reset_infos(self, sensors: np.ndarray) -> dict[str, np.ndarray]: ...

    def step_terms(self, before: np.ndarray, after: np.ndarray,
                   actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]: ...
