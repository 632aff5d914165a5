"""What a simulation gives C++ to be applied, stepped and read through: `HotPathParts`, and what it is told back.

The loops' hot path (`coupler.serve.hot_path`) and the step of a Control
served in Python (`coupler.serve.native_control_step`) both take these parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from coupler import _native


@dataclass(frozen=True)
class HotPathParts:
    """The C++ objects a simulation is applied, stepped and read through, for the hot path."""

    scatter: _native.ControlScatter  # writes the control arrays into the simulation
    gather: _native.SensorGather  # fills the sensor array from the simulation
    stepper: Any  # a _native.CountedSteps or _native.MujocoStepper (or a _native.Stepper written in Python)


@runtime_checkable
class HotPathSimulation(Protocol):
    """An ArraySimulation the hot path can step: its parts, and what it must be told afterwards."""

    def settle(self) -> None:
        """Leave the state as reading it does (nothing left to compute before the next read), which C++ steps from."""
        ...

    def hot_path_parts(self) -> HotPathParts | None:
        """None when C++ cannot serve this simulation's Controls (it has no C++ parts)."""
        ...

    def refuse_values(self, values: np.ndarray, values_set: np.ndarray) -> None:
        """Raise ProtocolError (CONTROL_MISMATCH) naming the first value of a Control read into the control arrays
        that `apply_values` would refuse (C++ applies it whatever its values); nothing is applied."""
        ...

    def hot_path_served(self, clamped: int, first_clamped: list[int], failed: bool) -> None:
        """Count `clamped` values the hot path applied outside their range and warn about `first_clamped` (indices
        into the control arrays); with `failed`, the simulation failed and its state is unknown."""
        ...
