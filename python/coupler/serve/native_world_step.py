"""A Control for every world served in Python is applied, stepped and read in C++, as the hot path serves one.

`BatchedResponder` checks a Control for every world (its shape, the values
the physics cannot take, the images it asks for); then the batch's C++ hot
path (`_native.WorldHotPath.step_control`) applies it to every world,
resets the worlds it lists, steps the others and reads them all into the
arrays the answer is written from: the very C++ object of a lockstep loop's
`WorldHotPath` where it has one, else one of the responder's own over the
same worlds. Stepped here, a Control of many steps takes them all at once.
Under a lockstep loop (`chunks`), one of more than `LONG_CONTROL_STEPS`
steps is applied in C++ (`start_chunks`) and its chunks are left to the hot
path's next runs, which take them as their own (`coupler.serve.long_control`).
"""

from __future__ import annotations

import math
from typing import Any

from coupler.limits import MAX_STEPS_PER_CONTROL
from coupler.serve.long_control import LongControl


class NativeWorldStep:
    """Steps the checked Controls for every world of a batch through `path` (a batch's hot path, as
    `coupler.mujoco.world_batch.WorldBatch.hot_path` gives); `chunks`: under a lockstep loop, whose `stop_after`
    `path` was made with, one of many steps is left to the loop in chunks."""

    def __init__(self, path: Any, chunks: bool = False) -> None:
        self.path = path
        self.chunks = chunks
        self.controls = 0  # Controls for every world stepped here so far
        self.resets = 0  # worlds they reset

    @classmethod
    def for_responder(cls, responder: Any) -> NativeWorldStep:
        """The C++ step of the Controls for every world `responder` (a `BatchedResponder`) serves, through a hot path
        of its own over its batch, answering from the responder's arrays."""
        path = responder.worlds.hot_path(responder.world_sensors, responder.world_times, MAX_STEPS_PER_CONTROL,
                                         math.inf, time_step=responder.sim.handshake.time_step)
        return cls(path)

    def take(self, frame: bytes) -> None:
        """Apply, step (every step at once) and read in C++ the Control for every world `frame`, checked by the
        caller. A failure of the worlds raises, as does a Control C++ does not take."""
        outcome = self.path.step_control(frame)
        if outcome is None:
            raise RuntimeError("a Control for every world was checked but the worlds' hot path did not take it")
        if outcome.failure:
            raise RuntimeError(outcome.failure)
        self.controls += outcome.controls
        self.resets += outcome.resets

    def start_chunks(self, frame: bytes, peer: bytes) -> LongControl:
        """Apply in C++ the Control for every world `frame` of `peer`, checked by the caller, of more than
        `LONG_CONTROL_STEPS` steps, its chunks left to the hot path's next runs (`LockstepLoop._step_long_control`):
        the long Control to mirror in `SimulationServer.long_control` (its answer still to set). Raises as `take`
        does."""
        outcome = self.path.start_chunks(frame)
        if outcome is None:
            raise RuntimeError("a Control for every world was checked but the worlds' hot path did not take it")
        self.controls += outcome.controls
        self.resets += outcome.resets
        return LongControl([peer], outcome.long_steps, answered_here=True)
