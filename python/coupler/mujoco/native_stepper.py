"""MuJoCo's stepping in C++, for the native hot path (`coupler.serve.hot_path`).

coupler builds without MuJoCo: `coupler._native.MujocoStepper` calls MuJoCo's
C functions through addresses found here, in the very libmujoco that the
`mujoco` package has loaded (shipped in its folder), so both paths step the
same library on the same `mjData`.
"""

from __future__ import annotations

import ctypes
import functools
import logging
import sys
from pathlib import Path

import mujoco

from coupler import _native

log = logging.getLogger(__name__)

_FUNCTIONS = ("mj_step", "mj_step2", "mj_forward", "mj_checkPos", "mj_checkVel", "mj_getState", "mj_rnePostConstraint",
              "mj_fwdPosition", "mj_fwdVelocity", "mj_fwdActuation", "mj_sensorPos", "mj_sensorVel", "mj_energyPos",
              "mj_energyVel", "mj_forwardSkip", "mj_checkAcc", "mj_RungeKutta")
_LIBRARY_NAMES = {"linux": "libmujoco.so*", "darwin": "libmujoco*.dylib", "win32": "mujoco.dll"}

_BAD_QPOS = int(mujoco.mjtWarning.mjWARN_BADQPOS)
_BAD_QVEL = int(mujoco.mjtWarning.mjWARN_BADQVEL)


@functools.cache
def mujoco_library() -> ctypes.CDLL | None:
    """The libmujoco the `mujoco` package has loaded; None (logged once) when it cannot be found."""
    folder = Path(mujoco.__file__).parent
    pattern = _LIBRARY_NAMES.get(sys.platform, "libmujoco.so*")
    libraries = sorted(folder.glob(pattern))
    if not libraries:
        log.info("no %s in %s: MuJoCo scenes are stepped through Python", pattern, folder)
        return None
    try:
        return ctypes.CDLL(str(libraries[-1]))
    except OSError as error:
        log.info("MuJoCo's library %s cannot be used from C++ (%s): MuJoCo scenes are stepped through Python",
                 libraries[-1], error)
        return None


@functools.cache
def mujoco_functions() -> dict[str, int] | None:
    """The addresses of the functions a stepper calls; None (logged once) when the library cannot be found."""
    library = mujoco_library()
    if library is None:
        return None
    try:
        return {name: ctypes.cast(getattr(library, name), ctypes.c_void_p).value or 0 for name in _FUNCTIONS}
    except AttributeError as error:
        log.info("MuJoCo's library %s cannot be used from C++ (%s): MuJoCo scenes are stepped through Python",
                 library._name, error)
        return None


def resumes_rk4(model: mujoco.MjModel) -> bool:
    """Whether an RK4 step of `model` may start past the position and velocity stages mj_forward computed (the rest
    of mj_step done as mj_step does it): for RK4 without mjENBL_FWDINV, whose comparison mj_step runs between."""
    return (model.opt.integrator == mujoco.mjtIntegrator.mjINT_RK4
            and not model.opt.enableflags & mujoco.mjtEnableBit.mjENBL_FWDINV)


def mujoco_stepper(model: mujoco.MjModel, data: mujoco.MjData, split_step: bool) -> _native.MujocoStepper | None:
    """A C++ stepper of `data`; None when MuJoCo's functions cannot be reached from C++.

    `split_step`: the model's integrator lets mj_step2 finish a step that mj_forward began (all but RK4). An RK4
    step may resume past those stages too (`resumes_rk4`).
    """
    functions = mujoco_functions()
    if functions is None:
        return None
    return _native.MujocoStepper(model, data, functions, split_step, data.warning.number, _BAD_QPOS, _BAD_QVEL,
                                 resume_rk4=not split_step and resumes_rk4(model))
