"""N independent worlds of one MuJoCo model, stepped on several threads (`coupler.serve.batched_worlds.Worlds`).

Every world is a `MujocoSimulation` of the same `MjModel` with its own
`mjData`, so each steps, resets and reads exactly as a single served scene
does: N worlds given the same controls follow the trajectories of N single
servers, bit for bit. The worlds of a Control are reset (by each world's own
C++ reset, `MujocoSimulation.native_reset`), scattered, stepped and read in
C++ by the batch's hot path (`hot_path`, `coupler.mujoco.batch_hot_path`)
over `coupler.mujoco.native_world_steps`, one call for all of them, on
persistent threads (one contiguous share each) without the GIL. Python
names the values the physics cannot take (`check`) before C++ applies them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import mujoco
import numpy as np

from coupler import _native
from coupler.mujoco.native_world_steps import native_world_steps
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_data import WorldData
from coupler.mujoco.batch_hot_path import BatchHotPath
from coupler.mujoco.world_memory import PROBE_WORLDS, available_bytes, check_worlds_fit
from coupler.serve.memory_trim import resident_bytes
from coupler.wire.errors import Error
from coupler.wire.world_frames import WorldControl


def copy_of(first: MujocoSimulation) -> MujocoSimulation:
    """Another world of `first`'s model, grouped and started as `first` is."""
    return MujocoSimulation(first.model, robots=first.robots, keyframe=first.start_keyframe)


class WorldBatch:
    """`count` worlds: `first` (world 0, the scene served to ordinary requests) and `count` - 1 copies of it.

    The copies start, and reset, as `first` does (at its start keyframe). `threads`
    threads step them (0: one per core); with 1 the server's own thread does. Call `close()` to
    stop the threads. `data_names`: the mjData arrays of every world kept in
    `world_data` (see `coupler.mujoco.world_data`).
    """

    def __init__(self, first: MujocoSimulation, count: int, threads: int = 1, data_names: tuple[str, ...] = ()) -> None:
        if count < 1:
            raise Error(f"a batch needs at least one world, got {count}")
        if threads < 0:
            raise Error(f"a batch steps on at least one thread (0: one per core), got {threads}")
        threads = threads or os.cpu_count() or 1
        self.first = first
        self.count = count
        self.worlds = self._make_worlds(first, count)
        controls = first.flat.controls
        self._value_count = controls.values.size
        self.control_width = self._value_count + controls.events_on.size
        self.sensor_width = first.flat.sensors.values.size
        self.state_sizes = (first.model.nq, first.model.nv)
        self._data = [WorldData(world.model, world.data, data_names) for world in self.worlds] if data_names else []
        self.world_data = np.zeros((count, self._data[0].width if self._data else 0))
        # As many threads as contiguous shares of at most ceil(count / threads) worlds.
        self._native = native_world_steps(self.worlds, self._data, math.ceil(count / math.ceil(count / threads)))
        # The last Control's rows, which the native steps scatter (the hot path writes them).
        self._values = np.zeros((count, self._value_count))
        self._events = np.zeros((count, controls.events_on.size), dtype=np.uint8)

    @staticmethod
    def _make_worlds(first: MujocoSimulation, count: int) -> list[MujocoSimulation]:
        """`first` and `count` - 1 copies; Error before making them when the machine's memory cannot hold them."""
        worlds = [first]
        try:
            probe = min(count - 1, PROBE_WORLDS)
            before = resident_bytes()
            worlds += [copy_of(first) for _ in range(probe)]
            if probe:
                # At least mjData's buffer, which every world fills: memory an earlier batch freed can be reused
                # without the resident size growing, which alone would count the worlds as free.
                per_world = max((resident_bytes() - before) / probe, first.model.nbuffer)
                check_worlds_fit(count, 1 + probe, per_world, available_bytes())
            worlds += [copy_of(first) for _ in range(count - len(worlds))]
        except (mujoco.FatalError, MemoryError) as error:
            raise Error(f"--worlds {count}: out of memory after {len(worlds)} worlds ({error})") from None
        return worlds

    @property
    def threads(self) -> int:
        """How many threads step the worlds (at most one per world)."""
        return self._native.threads

    @property
    def clamped_values(self) -> int:
        return sum(world.clamped_values for world in self.worlds)

    def check(self, control: WorldControl) -> None:
        """Raise ProtocolError naming the first value of `control` (checked by `check_world_control`) the physics
        cannot take, in any world (`_native.WorldSteps.check`, the worlds' scatters' own check, as the hot path's)."""
        if control.controls.size:
            rows = control.controls.reshape(self.count, self.control_width)
            self._native.check(rows[:, : self._value_count], control.resets)

    @property
    def stepper(self) -> _native.WorldSteps:
        """The native steps of every world."""
        return self._native

    @property
    def values(self) -> np.ndarray:
        """The last Control's values (count x values), which the native steps scatter."""
        return self._values

    @property
    def events(self) -> np.ndarray:
        """The last Control's events (count x events, 1: on)."""
        return self._events

    def native_served(self, clamped: int, last_clamped: list[tuple[int, int]], failed: bool) -> None:
        """The hot path stepped every world (with `failed`, failed on a Control: the states are unknown): count
        `clamped` values and the (world, index) pairs `last_clamped` of the last Control, still in `values`."""
        self.first.clamped_values += clamped
        if failed:
            for world in self.worlds:
                world.hot_path_served(0, [], True)
            return
        by_world: dict[int, list[int]] = {}
        for world, index in last_clamped:
            by_world.setdefault(world, []).append(index)
        for world, indices in by_world.items():
            self.worlds[world].count_clamped(indices, self._values[world])

    def hot_path(self, sensors_out: np.ndarray, times_out: np.ndarray, max_steps: int,
                 stop_after: float = math.inf, trace: bool = False, time_step: float = 0.0) -> BatchHotPath:
        """The native hot path of this batch (`_native.WorldHotPath`), answering with `sensors_out` and `times_out`
        (written in place), for Controls of at most `max_steps` steps; `trace`: it returns after each Control with
        its frames, for --trace to log; `time_step`: a step's seconds, which pacing anchors a run's clock by."""
        return BatchHotPath(self, sensors_out, times_out, max_steps, stop_after, trace, time_step)

    def states(self, worlds: Sequence[int]) -> list[mujoco.MjData]:
        """The states of `worlds` (by index) to render: their own mjData, to be read while nothing steps them."""
        return [self.worlds[k].data for k in worlds]

    def close(self) -> None:
        """Stop the stepping threads: the worlds step on the calling thread from now on."""
        if self._native.threads > 1:
            self._native = native_world_steps(self.worlds, self._data, 1)  # the old one joins its threads as it goes
