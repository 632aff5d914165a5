"""A simulation whose steps fail (every one, or all after the first few), as one that has gone wrong would: its C++
stepper raises, wherever it is stepped from (a Control is stepped in C++, coupler.serve.native_control_step)."""

from __future__ import annotations

import dataclasses

from coupler import _native
from coupler.scenes.static import StaticScene
from coupler.serve.hot_path import HotPathParts


class FailingStepper(_native.Stepper):
    """Raises RuntimeError(`text`) on every step after its first `after` calls, which `stepper` (the simulation's
    own) takes; its time, and its settling, are `stepper`'s."""

    def __init__(self, stepper: object, text: str, after: int = 0) -> None:
        super().__init__()
        self._stepper = stepper
        self.text = text
        self.after = after

    def step(self, steps: int) -> None:
        if self.after <= 0:
            raise RuntimeError(self.text)
        self.after -= 1
        self._stepper.step(steps)  # type: ignore[attr-defined]

    def settle(self) -> None:
        settle = getattr(self._stepper, "settle", None)
        if settle is not None:
            settle()

    def time(self) -> float:
        return float(self._stepper.time)  # type: ignore[attr-defined]


def failing_parts(parts: HotPathParts, text: str, after: int = 0) -> HotPathParts:
    """`parts` whose stepper fails with `text` after its first `after` calls."""
    return dataclasses.replace(parts, stepper=FailingStepper(parts.stepper, text, after))


class BrokenScene(StaticScene):
    """The static scene, failing on every step with "the motor is on fire"."""

    def hot_path_parts(self) -> HotPathParts:
        return failing_parts(super().hot_path_parts(), "the motor is on fire")
