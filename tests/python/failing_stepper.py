"""A simulation that fails on every step, as one that has gone wrong would: its C++ stepper raises, wherever it is
stepped from (a Control is stepped in C++, coupler.serve.native_control_step)."""

from __future__ import annotations

import dataclasses

from coupler import _native
from coupler.scenes.static import StaticScene
from coupler.serve.hot_path import HotPathParts


class FailingStepper(_native.Stepper):
    """Raises RuntimeError(`text`) on every step; its time is that of `stepper`, the simulation's own."""

    def __init__(self, stepper: object, text: str) -> None:
        super().__init__()
        self._stepper = stepper
        self.text = text

    def step(self, steps: int) -> None:
        raise RuntimeError(self.text)

    def time(self) -> float:
        return float(self._stepper.time)  # type: ignore[attr-defined]


def failing_parts(parts: HotPathParts, text: str) -> HotPathParts:
    """`parts` whose stepper fails with `text`."""
    return dataclasses.replace(parts, stepper=FailingStepper(parts.stepper, text))


class BrokenScene(StaticScene):
    """The static scene, failing on every step with "the motor is on fire"."""

    def hot_path_parts(self) -> HotPathParts:
        return failing_parts(super().hot_path_parts(), "the motor is on fire")
