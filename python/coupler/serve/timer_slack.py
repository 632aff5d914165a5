"""Precise sleeps for real-time pacing.

Linux lets a sleeping thread wake up to its timer slack late (50 µs by
default) so that wake-ups can be batched. Pacing a simulation at steps of a
fraction of a millisecond cannot afford that: a step slept 50 µs too long
out of a 250 µs budget is most of a missed deadline. A paced server asks for
a slack of one microsecond instead, for the whole process.
"""

from __future__ import annotations

import ctypes
import logging
import sys

log = logging.getLogger(__name__)

_PR_SET_TIMERSLACK = 29  # from <linux/prctl.h>
_PR_GET_TIMERSLACK = 30
PRECISE_SLACK_NS = 1000


def tighten_timer_slack(nanoseconds: int = PRECISE_SLACK_NS) -> bool:
    """Set this process's timer slack; False (and a log line) where the system does not allow it."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_TIMERSLACK, ctypes.c_ulong(nanoseconds), 0, 0, 0) != 0:
        log.warning("cannot set the timer slack to %d ns (errno %d): sleeps may end up to 50 µs late",
                    nanoseconds, ctypes.get_errno())
        return False
    return True


def timer_slack_ns() -> int:
    """This thread's current timer slack, in nanoseconds (Linux only; -1 elsewhere)."""
    if not sys.platform.startswith("linux"):
        return -1
    return int(ctypes.CDLL(None).prctl(_PR_GET_TIMERSLACK, 0, 0, 0, 0))
