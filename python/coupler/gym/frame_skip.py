"""`frame_skip`: the simulation steps one action is held for, bounded as every Control's `steps` is."""

from __future__ import annotations

from coupler.limits import MAX_STEPS_PER_CONTROL
from coupler.wire.errors import Error


def checked_frame_skip(frame_skip: object) -> int:
    """`frame_skip` if a whole number from 1 to MAX_STEPS_PER_CONTROL; else Error naming the range.

    A server refuses a Control of more steps: refused here, it is said when
    the environment is made, not at its first step.
    """
    if isinstance(frame_skip, bool) or not isinstance(frame_skip, int) or not 1 <= frame_skip <= MAX_STEPS_PER_CONTROL:
        raise Error(f"frame_skip must be a whole number of steps from 1 to {MAX_STEPS_PER_CONTROL} (the most one "
                    f"Control takes), got {frame_skip!r:.40}")
    return frame_skip
