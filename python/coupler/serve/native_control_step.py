"""A lone controller's Control served in Python is applied, stepped and read in C++, as the hot path serves one.

`ControlAnswer` reads a Control (a native request the hot path handed back
or that no hot path serves, or a message given to `SimulationServer.handle`)
into the simulation's control arrays; `coupler._native.HotPath.step_checked`
then applies them through the simulation's scatter, steps its stepper and
reads its gather: the very C++ parts (`HotPathParts`) a loop's hot path
serves Controls through, and the very C++ object where a loop has one
(`ControlAnswer.step_with`). Python first names a value it refuses (`refuse_values`), and is
told what C++ clamped and whether the simulation failed (`hot_path_served`).
Stepped here, a Control of many steps takes them all at once: no loop
serves others between chunks (a loop leaves those to its own chunks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from coupler import _native
from coupler.serve.hot_path_parts import HotPathSimulation
from coupler.serve.simulation import ArraySimulation


class NativeControlStep:
    """Steps the Controls read into `simulation`'s control arrays in C++; `for_simulation` gives None for one without
    hot path parts."""

    def __init__(self, simulation: HotPathSimulation, path: Any) -> None:
        self._simulation = simulation
        self._flat = simulation.flat  # type: ignore[attr-defined]  # an ArraySimulation too
        self.path = path  # the _native.HotPath that steps this simulation

    @classmethod
    def for_simulation(cls, simulation: object, path: Any = None) -> NativeControlStep | None:
        """The C++ step of `simulation`'s Controls, through `path` (a loop's `_native.HotPath` of it, so that one C++
        object steps it) or one built of its hot path parts; None when it has none."""
        if not isinstance(simulation, ArraySimulation) or not isinstance(simulation, HotPathSimulation):
            return None
        if path is None:
            parts = simulation.hot_path_parts()
            if parts is None:
                return None
            flat = simulation.flat
            path = _native.HotPath(flat.controls, flat.sensors, parts.scatter, parts.gather, parts.stepper)
        return cls(simulation, path)

    def refuse(self) -> None:
        """Raise ProtocolError naming the first value of the Control read into the arrays that cannot be applied."""
        c = self._flat.controls
        self._simulation.refuse_values(c.values, c.values_set)

    def take(self, steps: int, sensors_out: np.ndarray) -> Any:
        """Apply the Control read into the arrays (checked by `refuse`), take `steps` steps (0: none, a free run's
        Control) and read the new state into `sensors_out`; the C++ outcome: its steps and simulated time, or its
        failure."""
        simulation = self._simulation
        simulation.settle()  # C++ steps from a settled state, as a read leaves it
        outcome = self.path.step_checked(steps)
        if outcome.clamped or outcome.failure:
            simulation.hot_path_served(outcome.clamped, list(outcome.first_clamped), bool(outcome.failure))
        gathered = self._flat.sensors.values
        if not outcome.failure and sensors_out is not gathered:
            np.copyto(sensors_out, gathered)
        return outcome
