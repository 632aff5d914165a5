"""MuJoCo's profiler timers, off in a server: nobody reads them, and their clock costs about 5 % of a step.

The `mujoco` package sets MuJoCo's timer callback (`mjcb_time`) so that
`mjData.timer` measures each stage; MuJoCo then reads the clock twice per
stage of every step. A served scene's timers reach no client, so a server
turns them off for its process (the callback is global to the library).
The physics is the same either way: only `mjData.timer`'s durations stay 0.
"""

from __future__ import annotations

import ctypes
import logging

from coupler.mujoco.native_stepper import mujoco_library
from coupler.wire.errors import Error

log = logging.getLogger(__name__)


def _timer_callback() -> ctypes.c_void_p | None:
    try:
        library = mujoco_library()
    except Error:
        return None  # then no MuJoCo scene is served, and none is timed
    try:
        return ctypes.c_void_p.in_dll(library, "mjcb_time")
    except ValueError:
        log.info("MuJoCo's library has no mjcb_time: its profiler timers stay on")
        return None


def set_profiler_timers(callback: int | None) -> int | None:
    """Make `callback` (an address; None: no timers) MuJoCo's timer callback in this process; the one it
    replaces (None also when the library cannot be reached, and nothing changes)."""
    timer = _timer_callback()
    if timer is None:
        return None
    previous = timer.value
    timer.value = callback
    return previous


def stop_profiler_timers() -> None:
    """MuJoCo reads no clock for `mjData.timer` in this process from now on."""
    set_profiler_timers(None)
