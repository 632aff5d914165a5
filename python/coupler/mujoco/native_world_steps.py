"""The worlds of a batch stepped in C++ (`_native.WorldSteps`): one call per Control, on persistent threads.

Each world is stepped through its `MujocoSimulation`'s own C++ parts (its
control scatter, sensor gather and MuJoCo stepper), so a world steps exactly
as it does alone; the threads run without the GIL.
After its steps a world runs only the stages of mj_forward its readings
need (`coupler.mujoco.readings_stages`): all of the position and velocity
stages where its next step can start past them.
"""

from __future__ import annotations

from coupler import _native
from coupler.mujoco.flat import gathered_arrays
import mujoco

from coupler.mujoco.native_stepper import mujoco_functions, resumes_rk4
from coupler.mujoco.readings_stages import readings_stages, resumable_stages
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_data import WorldData


def native_world_steps(worlds: list[MujocoSimulation], data: list[WorldData], threads: int) -> _native.WorldSteps:
    """`worlds` (and their `data`, one per world or none) stepped on `threads` threads."""
    parts = [world.native_parts() for world in worlds]
    functions = mujoco_functions()
    after_step = functions["mj_rnePostConstraint"] if data and data[0].post_constraint else 0
    stages, forward = settling(worlds[0])
    return _native.WorldSteps([p.stepper for p in parts], [p.scatter for p in parts],
                              [p.gather for p in parts], [d.gather for d in data],
                              len(worlds[0].flat.controls.objects), data[0].width if data else 0, threads, after_step,
                              None if stages is None else [functions[name] for name in stages], forward,
                              [world.native_reset for world in worlds])


def settling_stages(world: MujocoSimulation) -> tuple[str, ...] | None:
    """The stages of mj_forward that bring `world`'s readings up to date after a step; None: all of mj_forward."""
    return readings_stages(gathered_arrays(world.layout, world.flat))


def settling(world: MujocoSimulation) -> tuple[tuple[str, ...] | None, bool]:
    """The stages a batch's world runs after its steps (None: mj_forward), and whether they leave its position and
    velocity stages computed, so that its next step starts past them (mj_forward always does)."""
    stages = settling_stages(world)
    model = world.model
    if stages is None:
        return None, True
    if model.opt.integrator != mujoco.mjtIntegrator.mjINT_RK4 or resumes_rk4(model):
        energy = bool(model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_ENERGY)
        return resumable_stages(stages, energy), True
    return stages, False
