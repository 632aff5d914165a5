"""The batch's side of the native hot path of batched worlds: what `_native.WorldHotPath` leaves told to the batch.

C++ reads and writes the batch's own arrays (the last Control's values and
events, how each world is left, the answer's readings and times, the world
data), so that whatever the batch does next, on the Python path or in
C++, starts from the same state.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from coupler import _native

if TYPE_CHECKING:
    from coupler.mujoco.world_batch import WorldBatch


class BatchHotPath:
    """The native hot path of `batch`, answering from `sensors_out` and `times_out` (written in place)."""

    def __init__(self, batch: WorldBatch, sensors_out: np.ndarray, times_out: np.ndarray, max_steps: int,
                 stop_after: float = math.inf, trace: bool = False, time_step: float = 0.0) -> None:
        self.batch = batch
        self._long = False  # a Control of many steps was in progress after the last run
        # Each world's stepper knows how its state is left, whichever path changed it last.
        self._path = _native.WorldHotPath(batch.stepper, batch.values, batch.events, sensors_out, times_out,
                                          batch.world_data, max_steps, stop_after, trace, time_step)

    def send_held(self, server: Any) -> bool:
        """`_native.WorldHotPath.send_held`: the paced answer held for its time, sent now."""
        return bool(self._path.send_held(server))

    def hold(self, request: Any, frame: bytes, time: float) -> None:
        """`_native.WorldHotPath.hold`: the answer Python made to `request`, held until its time by the next run()."""
        self._path.hold(request, frame, time)

    def publish_to(self, publisher: Any) -> None:
        """Publish each Control answered on `publisher` (a `_native.FramePublisher`), every world's state after
        its steps read from its own mjData, as an observer does on the Python path."""
        self._path.publish_to(publisher, [(w.data.qpos, w.data.qvel, w.data.act, w.data.ctrl, w.data.mocap_pos,
                                           w.data.mocap_quat) for w in self.batch.worlds])

    def run(self, server: Any, peer: bytes, return_after: float, ring: Any = None, starting: bool = False,
            steps_before: int = 0, sizes_logged: tuple[int, int] | None = None, **pacing: Any) -> Any:
        """`_native.WorldHotPath.run` from the state the batch is in (`pacing`: its clock, late_after and
        longest_hold); the batch is told what it did."""
        outcome = self._path.run(server, peer, return_after, ring, starting, steps_before, sizes_logged, **pacing)
        # A Control of many steps in progress steps the worlds in runs that answer none.
        if outcome.controls or outcome.failure or outcome.long_steps or self._long:
            self.batch.native_served(outcome.clamped, list(outcome.last_clamped), bool(outcome.failure))
        self._long = outcome.long_steps > 0
        return outcome

    def step_control(self, frame: bytes) -> Any | None:
        """`_native.WorldHotPath.step_control` of the Control for every world `frame` from the state the batch is
        in; the batch is told what it did. None: the caller steps it, nothing applied."""
        outcome = self._path.step_control(frame)
        if outcome is not None:
            self.batch.native_served(outcome.clamped, list(outcome.last_clamped), bool(outcome.failure))
        return outcome

    def start_chunks(self, frame: bytes) -> Any | None:
        """`_native.WorldHotPath.start_chunks` of the Control for every world `frame` from the state the batch is
        in: applied, its chunks left to the next run()s, which tell the batch what they did. None: the caller steps
        it, nothing applied."""
        outcome = self._path.start_chunks(frame)
        self._long = outcome is not None and outcome.long_steps > 0
        return outcome

    def end_long_control(self, server: Any, text: str) -> bool:
        """`_native.WorldHotPath.end_long_control`: the Control of many steps in progress answered with `text`."""
        self._long = False
        return bool(self._path.end_long_control(server, text))
