"""N independent worlds of one MuJoCo model, stepped on several threads (`coupler.serve.batched_worlds.Worlds`).

Every world is a `MujocoSimulation` of the same `MjModel` with its own
`mjData`, so each steps, resets and reads exactly as a single served scene
does: N worlds given the same controls follow the trajectories of N single
servers, bit for bit. MuJoCo's bindings release the GIL while they step and
compute, so the worlds (split into one contiguous share per thread) step in
parallel; what stays under the GIL is the few calls per world around them.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import mujoco
import numpy as np

from coupler.mujoco.flat import control_scatter
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_data import WorldData
from coupler.mujoco.world_memory import PROBE_WORLDS, available_bytes, check_worlds_fit
from coupler.serve.memory_trim import resident_bytes
from coupler.wire.errors import Error, ProtocolError
from coupler.wire.messages import ErrorCode
from coupler.wire.world_frames import WorldControl

_MAX_CONTROL = float(mujoco.mjMAXVAL)


def copy_of(first: MujocoSimulation) -> MujocoSimulation:
    """Another world of `first`'s model, grouped and started as `first` is."""
    return MujocoSimulation(first.model, robots=first.robots, keyframe=first.start_keyframe)


class WorldBatch:
    """`count` worlds: `first` (world 0, the scene served to ordinary requests) and `count` - 1 copies of it.

    The copies start, and reset, as `first` does (at its start keyframe). `threads`
    threads step them; with 1 the server's own thread does. Call `close()` to
    stop the threads. `data_names`: the mjData arrays of every world kept in
    `world_data` (see `coupler.mujoco.world_data`).
    """

    def __init__(self, first: MujocoSimulation, count: int, threads: int = 1, data_names: tuple[str, ...] = ()) -> None:
        if count < 1:
            raise Error(f"a batch needs at least one world, got {count}")
        if threads < 1:
            raise Error(f"a batch steps on at least one thread, got {threads}")
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
        _, self._ranges = control_scatter(first.layout, first.flat, first.data)
        self._names = self._ranges.names
        self._limits = self._ranges.value_limits()
        self._every_object = np.ones(len(controls.objects), dtype=bool)
        self._every_event = np.ones(controls.events_on.size, dtype=bool)
        share = math.ceil(count / threads)
        self._shares = [range(start, min(start + share, count)) for start in range(0, count, share)]
        self._pool = ThreadPoolExecutor(len(self._shares), thread_name_prefix="worlds") if len(self._shares) > 1 else None
        # What the last `start` asked of `advance`.
        self._resets: dict[int, tuple[list[float], list[float]]] = {}
        self._reset_worlds: frozenset[int] = frozenset()
        self._stepped = False

    @staticmethod
    def _make_worlds(first: MujocoSimulation, count: int) -> list[MujocoSimulation]:
        """`first` and `count` - 1 copies; Error before making them when the machine's memory cannot hold them."""
        worlds = [first]
        try:
            probe = min(count - 1, PROBE_WORLDS)
            before = resident_bytes()
            worlds += [copy_of(first) for _ in range(probe)]
            if probe:
                check_worlds_fit(count, 1 + probe, (resident_bytes() - before) / probe, available_bytes())
            worlds += [copy_of(first) for _ in range(count - len(worlds))]
        except (mujoco.FatalError, MemoryError) as error:
            raise Error(f"--worlds {count}: out of memory after {len(worlds)} worlds ({error})") from None
        return worlds

    @property
    def threads(self) -> int:
        """How many threads step the worlds (at most one per world)."""
        return len(self._shares)

    @property
    def clamped_values(self) -> int:
        return sum(world.clamped_values for world in self.worlds)

    def _check_values(self, values: np.ndarray) -> None:
        """ProtocolError naming the first control value MuJoCo would zero, in any world; nothing is applied."""
        # MuJoCo zeroes every control of a step, with only a warning, when one is beyond mjMAXVAL.
        beyond = np.abs(self._ranges.controls(values)) > _MAX_CONTROL
        if beyond.any():
            world, index = (int(k) for k in np.argwhere(beyond)[0])
            obj, control = self._names[index]
            raise ProtocolError(
                f"control does not match the handshake: control '{control}' of object '{obj}' in world {world} is "
                f"{values[world, index]:g}, beyond the {self._limits[index]:g} MuJoCo accepts",
                ErrorCode.CONTROL_MISMATCH)

    def run(self, control: WorldControl, sensors_out: np.ndarray, times_out: np.ndarray) -> None:
        self.advance(self.start(control), sensors_out, times_out)

    def start(self, control: WorldControl) -> int:
        """Apply `control`'s values to the worlds it steps; the steps they take (0: none), taken by `advance`.

        The worlds it resets are reset by the next `advance`. ProtocolError
        for values the physics cannot take, before any world changes.
        """
        stepping = control.controls.size > 0
        nq, nv = self.state_sizes
        resets: dict[int, tuple[list[float], list[float]]] = {}
        for k, world in enumerate(control.resets.tolist()):
            qpos = control.qpos[k * nq : (k + 1) * nq].tolist() if control.qpos.size else []
            qvel = control.qvel[k * nv : (k + 1) * nv].tolist() if control.qvel.size else []
            resets[world] = (qpos, qvel)
        if stepping:
            rows = control.controls.reshape(self.count, self.control_width)
            values, events = rows[:, : self._value_count], rows[:, self._value_count :] != 0.0
            self._check_values(values)
            mocap = self.first.mocap
            if mocap:
                # Checked for every world before any world changes, as _check_values does.
                for i in range(self.count):
                    if i not in resets:
                        mocap.check(values[i], self._every_object, f" in world {i}")
        if stepping:
            for i, world in enumerate(self.worlds):
                if i not in resets:
                    world.apply_values(values[i], self._every_object, self._every_event, events[i])
        self._resets = resets  # reset by the next advance
        self._reset_worlds = frozenset(resets)  # not stepped by this Control
        self._stepped = stepping
        return max(control.steps, 1) if stepping else 0

    def advance(self, steps: int, sensors_out: np.ndarray | None = None, times_out: np.ndarray | None = None) -> None:
        """Reset the worlds the last `start` resets (the first call after it), step the others `steps` times, and
        read every world into `sensors_out` and `times_out` when given.

        A Control's steps may be taken in several calls (chunks): the worlds end
        in the state one call would have left, bit for bit.
        """
        resets, self._resets = self._resets, {}
        reset_worlds = self._reset_worlds
        stepping = self._stepped and steps > 0

        def run_share(share: range) -> None:
            for i in share:
                world = self.worlds[i]
                state = resets.get(i)
                if state is not None:
                    world.reset_to(*state)
                    if self._data:
                        self._data[i].read(self.world_data[i])
                elif stepping and i not in reset_worlds:
                    world.step(steps)
                    if self._data:
                        self._data[i].after_step()
                        self._data[i].read(self.world_data[i])
                if sensors_out is not None and times_out is not None:
                    times_out[i] = world.sensor_values(sensors_out[i])

        if self._pool is None:
            run_share(self._shares[0])
        else:
            for done in [self._pool.submit(run_share, share) for share in self._shares]:
                done.result()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
