"""The worlds of a batch stepped in C++ (`_native.WorldSteps`): one call per Control, on persistent threads.

Each world is stepped through the parts its `MujocoSimulation` gives the
native hot path (its control scatter, sensor gather and MuJoCo stepper), so
a world steps exactly as it does alone; the threads run without the GIL.
"""

from __future__ import annotations

from coupler import _native
from coupler.mujoco.native_stepper import mujoco_functions
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_data import WorldData


def native_world_steps(worlds: list[MujocoSimulation], data: list[WorldData],
                       threads: int) -> _native.WorldSteps | None:
    """`worlds` (and their `data`, one per world or none) stepped on `threads` threads; None when a world cannot be
    stepped in C++ (a mocap body, or MuJoCo's library out of reach)."""
    parts = [world.hot_path_parts() for world in worlds]
    functions = mujoco_functions()
    if functions is None or any(p is None for p in parts):
        return None
    after_step = functions["mj_rnePostConstraint"] if data and data[0].post_constraint else 0
    return _native.WorldSteps([p.stepper for p in parts], [p.scatter for p in parts],  # type: ignore[union-attr]
                              [p.gather for p in parts], [d.gather for d in data],  # type: ignore[union-attr]
                              len(worlds[0].flat.controls.objects), data[0].width if data else 0, threads, after_step)
