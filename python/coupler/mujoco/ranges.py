"""The handshake's control ranges and joint limits (the "ranges" extension), from a compiled model.

A control's range is given in the units the controller sends: the scatter
takes each value to the actuator's ctrl as value * scale / divisor
(`ObjectLayout.ctrl_scale` and `ctrl_divisor`: a servo's gear is the scale,
a motor's the divisor) before MuJoCo clamps it to the actuator's ctrlrange,
so the range a controller sees is that ctrlrange * divisor / scale (a
motor's ctrlrange * gear, a servo's ctrlrange / gear). Where rounding would
take an end of it one bit outside the ctrlrange on the way back, the end is
moved inward by that bit: every value inside the announced range reaches
MuJoCo inside the ctrlrange, so sending an end is never clamped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import mujoco
import numpy as np

from coupler.wire.messages import Range

__all__ = ["control_ranges", "joint_limits"]

_UNLIMITED = Range()


def control_ranges(scale: np.ndarray, divisor: np.ndarray, low: np.ndarray, high: np.ndarray) -> list[Range]:
    """One range per control from its factor, divisor and actuator's ctrlrange (infinite where unlimited)."""
    ranges = []
    for factor, div, lo, hi in zip(scale, divisor, low, high):
        if not (math.isfinite(lo) and math.isfinite(hi)):
            ranges.append(_UNLIMITED)
            continue
        factor, div, lo, hi = float(factor), float(div), float(lo), float(hi)
        ends = sorted((lo * div / factor, hi * div / factor))
        inside = _inward(ends[0], ends[1], factor, div, lo, hi)
        ranges.append(Range(min=inside[0], max=inside[1], limited=True))
    return ranges


def _inward(first: float, last: float, factor: float, div: float, lo: float, hi: float) -> tuple[float, float]:
    """[first, last] narrowed bit by bit until both ends reach the ctrlrange [lo, hi] as the scatter computes."""

    def inside(value: float) -> bool:
        return lo <= value * factor / div <= hi

    # A bit or two at most: the division and product each round by half a bit.
    for _ in range(4):
        if inside(first):
            break
        first = math.nextafter(first, last)
    for _ in range(4):
        if inside(last):
            break
        last = math.nextafter(last, first)
    return first, last


def joint_limits(model: mujoco.MjModel, joints: Iterable[int]) -> list[Range]:
    """One range per joint (by id): its jnt_range where jnt_limited, else unlimited."""
    limits = []
    for j in joints:
        if not bool(model.jnt_limited[j]):
            limits.append(_UNLIMITED)
            continue
        low, high = (float(v) for v in model.jnt_range[j])
        limits.append(Range(min=low, max=high, limited=True))
    return limits
