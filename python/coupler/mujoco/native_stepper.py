"""MuJoCo's stepping and resets, in C++: the one stepper and reset of every served MuJoCo scene.

coupler builds without MuJoCo: `coupler._native.MujocoStepper` calls MuJoCo's
C functions through addresses found here, in the very libmujoco that the
`mujoco` package has loaded (shipped in its folder), so the served scene and
a program using the `mujoco` package step the same library on the same
`mjData`. Without that library no MuJoCo scene is served: `mujoco_library`
says so in one line.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from pathlib import Path

import mujoco

from coupler import _native
from coupler.wire.errors import Error

_FUNCTIONS = ("mj_step", "mj_step2", "mj_forward", "mj_checkPos", "mj_checkVel", "mj_getState", "mj_rnePostConstraint",
              "mj_fwdPosition", "mj_fwdVelocity", "mj_fwdActuation", "mj_sensorPos", "mj_sensorVel", "mj_energyPos",
              "mj_energyVel", "mj_forwardSkip", "mj_checkAcc", "mj_RungeKutta", "mj_resetData", "mj_resetDataKeyframe")
_LIBRARY_NAMES = {"linux": "libmujoco.so*", "darwin": "libmujoco*.dylib", "win32": "mujoco.dll"}

_BAD_QPOS = int(mujoco.mjtWarning.mjWARN_BADQPOS)
_BAD_QVEL = int(mujoco.mjtWarning.mjWARN_BADQVEL)


@functools.cache
def mujoco_library() -> ctypes.CDLL:
    """The libmujoco the `mujoco` package has loaded; Error when it cannot be found or loaded."""
    folder = Path(mujoco.__file__).parent
    pattern = _LIBRARY_NAMES.get(sys.platform, "libmujoco.so*")
    libraries = sorted(folder.glob(pattern))
    if not libraries:
        raise Error(f"no {pattern} in {folder}: serving a MuJoCo scene needs the library the `mujoco` package "
                    "ships there")
    try:
        return ctypes.CDLL(str(libraries[-1]))
    except OSError as error:
        raise Error(f"the `mujoco` package's library {libraries[-1]} cannot be loaded ({error}): MuJoCo scenes are "
                    "stepped through it") from None


@functools.cache
def mujoco_functions() -> dict[str, int]:
    """The addresses of the functions a stepper calls; Error when the library or one of them cannot be found."""
    library = mujoco_library()
    missing = [name for name in _FUNCTIONS if not hasattr(library, name)]
    if missing:
        raise Error(f"the `mujoco` package's library {library._name} lacks {', '.join(missing)}: MuJoCo scenes are "
                    f"stepped through them (mujoco {mujoco.__version__})")
    return {name: ctypes.cast(getattr(library, name), ctypes.c_void_p).value or 0 for name in _FUNCTIONS}


def resumes_rk4(model: mujoco.MjModel) -> bool:
    """Whether an RK4 step of `model` may start past the position and velocity stages mj_forward computed (the rest
    of mj_step done as mj_step does it): for RK4 without mjENBL_FWDINV, whose comparison mj_step runs between."""
    return (model.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
            and not model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_FWDINV)


def mujoco_stepper(model: mujoco.MjModel, data: mujoco.MjData,
                   settling: tuple[tuple[str, ...] | None, bool]) -> _native.MujocoStepper:
    """The C++ stepper of `data`, settled as `settling` says (`coupler.mujoco.readings_stages.settling`: the stages of
    mj_forward its readings need, None for all of it, and whether they leave the next step to start past them); Error
    when MuJoCo's functions cannot be reached from C++.

    After an mj_forward (or all of its position and velocity stages) a step of
    any integrator but RK4 runs only mj_step2; an RK4 step may resume past
    those stages too (`resumes_rk4`).
    """
    split_step = model.opt.integrator != mujoco.mjtIntegrator.mjINT_RK4
    stages, forward = settling
    return _native.MujocoStepper(model, data, mujoco_functions(), split_step, data.warning.number, _BAD_QPOS,
                                 _BAD_QVEL, resume_rk4=not split_step and resumes_rk4(model),
                                 readings_stages=None if stages is None else list(stages), stages_forward=forward)


def mujoco_reset(data: mujoco.MjData, stepper: _native.MujocoStepper,
                 start_keyframe: int | None) -> _native.MujocoReset:
    """The C++ reset of `data`, settled through `stepper` (its stepper), to keyframe `start_keyframe` (an index the
    model has; None: the model's reference configuration); Error when MuJoCo's functions cannot be reached."""
    return _native.MujocoReset(stepper, data.qpos, data.qvel, mujoco_functions(),
                               -1 if start_keyframe is None else start_keyframe)
