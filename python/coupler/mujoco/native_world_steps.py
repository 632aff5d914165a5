"""The worlds of a batch stepped in C++ (`_native.WorldSteps`): one call per Control, on persistent threads.

Each world is stepped through its `MujocoSimulation`'s own C++ parts (its
control scatter, sensor gather and MuJoCo stepper), so a world steps exactly
as it does alone; the threads run without the GIL.
After its steps a world is settled by its stepper, as a scene alone is: by
the stages of mj_forward its readings need (`coupler.mujoco.readings_stages`).
"""

from __future__ import annotations

from coupler import _native
from coupler.mujoco.native_stepper import mujoco_functions
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_data import WorldData


def native_world_steps(worlds: list[MujocoSimulation], data: list[WorldData], threads: int) -> _native.WorldSteps:
    """`worlds` (and their `data`, one per world or none) stepped on `threads` threads."""
    parts = [world.native_parts() for world in worlds]
    functions = mujoco_functions()
    after_step = functions["mj_rnePostConstraint"] if data and data[0].post_constraint else 0
    return _native.WorldSteps([p.stepper for p in parts], [p.scatter for p in parts],
                              [p.gather for p in parts], [d.gather for d in data],
                              len(worlds[0].flat.controls.objects), data[0].width if data else 0, threads, after_step,
                              resets=[world.native_reset for world in worlds])

