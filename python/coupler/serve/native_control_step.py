"""A Control served in Python is applied, stepped and read in C++, as the hot path serves one.

`ControlAnswer` reads a Control (a native request the hot path handed back,
one served outside a loop, or a message given to `SimulationServer.handle`)
into the simulation's control arrays; `coupler._native.HotPath.step_checked`
then applies them through the simulation's scatter, steps its stepper and
reads its gather: the very C++ parts (`HotPathParts`) a loop's hot path
serves Controls through, and the very C++ object where a loop has one
(`ControlAnswer.step_with`). Python first names a value it refuses
(`refuse_values`), and is told what C++ clamped and whether the simulation
failed (`hot_path_served`). Stepped here, a Control of many steps takes them
all at once: no loop serves others between chunks. Under a lockstep loop
(`chunks`: the C++ object of its hot path), one of more than
`LONG_CONTROL_STEPS` steps is applied in C++ (`start_chunks`) and its chunks
are left to the hot path's next runs, which take them as their own
(`coupler.serve.long_control`).

With several controllers, each Control is applied here without a step
(`apply`, `HotPath.apply_checked`) and waits for its round, which is then
stepped and read here (`step_applied`), or under such a loop left to the
hot path in chunks (`start_applied_chunks`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from coupler import _native
from coupler.serve.hot_path_parts import HotPathSimulation
from coupler.serve.long_control import CHUNK_SECONDS, LongControl
from coupler.serve.simulation import ArraySimulation


class NativeControlStep:
    """Steps the Controls read into `simulation`'s control arrays in C++; `for_simulation` gives None for one without
    hot path parts."""

    def __init__(self, simulation: HotPathSimulation, path: Any, chunks: bool = False) -> None:
        self._simulation = simulation
        self._flat = simulation.flat  # type: ignore[attr-defined]  # an ArraySimulation too
        self.path = path  # the _native.HotPath that steps this simulation
        # The path is a lockstep loop's, configured with its stop_after: it takes a long Control's chunks.
        self.chunks = chunks
        self.controls = 0  # Controls applied and stepped here so far

    @classmethod
    def for_simulation(cls, simulation: object) -> NativeControlStep | None:
        """The C++ step of `simulation`'s Controls, through a `_native.HotPath` built of its hot path parts; None when
        it has none. Outside a lockstep loop, it steps a Control of many steps at once."""
        if not isinstance(simulation, ArraySimulation) or not isinstance(simulation, HotPathSimulation):
            return None
        parts = simulation.hot_path_parts()
        if parts is None:
            return None
        flat = simulation.flat
        path = _native.HotPath(flat.controls, flat.sensors, parts.scatter, parts.gather, parts.stepper,
                               chunk_seconds=CHUNK_SECONDS)
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
        self.controls += outcome.controls
        gathered = self._flat.sensors.values
        if not outcome.failure and sensors_out is not gathered:
            np.copyto(sensors_out, gathered)
        return outcome

    def start_chunks(self, steps: int, peers: list[bytes]) -> tuple[Any, LongControl | None]:
        """Apply in C++ the Control read into the arrays, of `steps` steps (more than LONG_CONTROL_STEPS), leaving its
        chunks to the hot path's next runs: the C++ outcome, and the `LongControl` of `peers` for the loop to answer.
        None when it was not applied: it failed (the outcome says so), or it has too few steps to take in chunks."""
        return self._chunks(self.path.start_chunks, steps, peers)

    def start_applied_chunks(self, steps: int, peers: list[bytes]) -> tuple[Any, LongControl | None]:
        """As `start_chunks`, for a round of `steps` steps whose Controls `apply` applied: nothing is applied."""
        return self._chunks(self.path.start_applied_chunks, steps, peers)

    def _chunks(self, start: Callable[[int], Any], steps: int,
                peers: list[bytes]) -> tuple[Any, LongControl | None]:
        simulation = self._simulation
        simulation.settle()  # C++ steps from a settled state, as a read leaves it
        outcome = start(steps)
        if outcome.clamped or outcome.failure:
            simulation.hot_path_served(outcome.clamped, list(outcome.first_clamped), bool(outcome.failure))
        if not outcome.long_steps or outcome.failure:
            return outcome, None
        self.controls += outcome.controls
        return outcome, LongControl(list(peers), steps, answered_here=True)

    def apply(self) -> Any:
        """Apply the Control read into the arrays (checked by `refuse`) without a step, for its round: the C++
        outcome, its clamps or its failure."""
        outcome = self.path.apply_checked()
        if outcome.clamped or outcome.failure:
            self._simulation.hot_path_served(outcome.clamped, list(outcome.first_clamped), bool(outcome.failure))
        self.controls += outcome.controls
        return outcome

    def step_applied(self, steps: int) -> Any:
        """Take `steps` steps of the controls `apply` applied (a round's) and read the new state; the C++ outcome:
        its steps and simulated time, or its failure."""
        simulation = self._simulation
        simulation.settle()  # C++ steps from a settled state, as a read leaves it
        outcome = self.path.step_applied(steps)
        if outcome.failure:
            simulation.hot_path_served(0, [], True)
        return outcome
