"""The handshake's control ranges and joint limits (the "ranges" extension), from a compiled model.

A control's range is given in the units the controller sends: the scatter
multiplies each value by the control's factor (`ObjectLayout.ctrl_scale`,
from the gear) before MuJoCo clamps it to the actuator's ctrlrange, so the
range a controller sees is that ctrlrange divided by the factor.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import mujoco
import numpy as np

from coupler.wire.messages import Range

__all__ = ["control_ranges", "joint_limits"]

_UNLIMITED = Range()


def control_ranges(scale: np.ndarray, low: np.ndarray, high: np.ndarray) -> list[Range]:
    """One range per control from its factor and its actuator's ctrlrange (infinite where unlimited)."""
    ranges = []
    for factor, lo, hi in zip(scale, low, high):
        if not (math.isfinite(lo) and math.isfinite(hi)):
            ranges.append(_UNLIMITED)
            continue
        ends = sorted((float(lo) / float(factor), float(hi) / float(factor)))
        ranges.append(Range(min=ends[0], max=ends[1], limited=True))
    return ranges


def joint_limits(model: mujoco.MjModel, joints: Iterable[str]) -> list[Range]:
    """One range per named joint: its jnt_range where jnt_limited, else unlimited."""
    limits = []
    for name in joints:
        j = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
        if j < 0 or not bool(model.jnt_limited[j]):
            limits.append(_UNLIMITED)
            continue
        low, high = (float(v) for v in model.jnt_range[j])
        limits.append(Range(min=low, max=high, limited=True))
    return limits
