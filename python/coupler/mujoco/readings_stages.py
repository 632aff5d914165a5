"""Which stages of mj_forward a scene's readings need after a step, so that a served scene runs only those.

A server's stepper (`coupler::MujocoStepper`) settles a scene, alone or
each world of a batch, after its steps so that its readings belong to its
new state. mj_forward computes, in order, the position stage (kinematics,
collisions, ...), the velocity stage, actuation, then accelerations,
constraint forces and the sensors. qpos and qvel are the state itself; body
poses (`xpos`, `xquat`) come from the position stage, `cvel` from the
velocity stage, `qfrc_actuator` from actuation. A reading from any other
array (MuJoCo sensors' `sensordata` among them) takes all of mj_forward.
The stages run are the very functions mj_forward calls, so the readings are
the same bit for bit; the work skipped (accelerations and constraint
forces: about 2 % of Gymnasium's Ant step of 5 steps) is done again by the
next step. Where that step can start past the position and velocity stages
(mj_step2, or the rest of an RK4 step), those stages are run in full
(`resumable_stages`) and the step starts after them.
"""

from __future__ import annotations

import mujoco

from coupler.mujoco.native_stepper import resumes_rk4

# The arrays each stage of mj_forward completes, in its order: a reading needs the stages up to its array's.
_STAGES = (
    ("mj_fwdPosition", frozenset({"xpos", "xquat"})),
    ("mj_fwdVelocity", frozenset({"cvel"})),
    ("mj_fwdActuation", frozenset({"qfrc_actuator"})),
)
_STATE = frozenset({"qpos", "qvel"})
STAGE_FUNCTIONS = tuple(name for name, _ in _STAGES)


def readings_stages(arrays: frozenset[str]) -> tuple[str, ...] | None:
    """The names of the first stages of mj_forward that compute every array of `arrays`, in order (none for
    the state alone); None when one needs all of mj_forward."""
    needed = -1
    for array in arrays - _STATE:
        stage = next((k for k, (_, computed) in enumerate(_STAGES) if array in computed), None)
        if stage is None:
            return None
        needed = max(needed, stage)
    return STAGE_FUNCTIONS[: needed + 1]


# mj_forward's position and velocity stages with what it computes beside them (mj_step1's, without its checks and
# the control callback): after these, a step may start past them (mj_step2, or the rest of an RK4 step).
_POSITION_AND_VELOCITY = ("mj_fwdPosition", "mj_sensorPos", "mj_energyPos", "mj_fwdVelocity", "mj_sensorVel",
                          "mj_energyVel")
_ENERGY = frozenset({"mj_energyPos", "mj_energyVel"})


def resumable_stages(stages: tuple[str, ...], energy: bool) -> tuple[str, ...]:
    """`stages` (of `readings_stages`) widened to all of mj_forward's position and velocity stages, in its order
    (the energy only when `energy`, mjENBL_ENERGY, is on, as mj_forward computes it), then actuation when
    `stages` has it: the work a step would do first, done for the readings instead."""
    widened = tuple(name for name in _POSITION_AND_VELOCITY if energy or name not in _ENERGY)
    return widened + tuple(name for name in stages if name not in widened)


def settling(model: mujoco.MjModel, arrays: frozenset[str]) -> tuple[tuple[str, ...] | None, bool]:
    """The stages that settle a scene of `model` whose readings are gathered from `arrays` after its steps (None:
    mj_forward), and whether they leave its position and velocity stages computed, so that its next step starts past
    them (mj_forward always does)."""
    stages = readings_stages(arrays)
    if stages is None:
        return None, True
    if model.opt.integrator != mujoco.mjtIntegrator.mjINT_RK4 or resumes_rk4(model):
        energy = bool(model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_ENERGY)
        return resumable_stages(stages, energy), True
    return stages, False
