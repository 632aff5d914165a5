"""A Control for every world stepped as a batched server steps one: checked in Python (its shape, then the values
the physics cannot take), then applied, stepped and read by the batch's C++ hot path."""

from __future__ import annotations

from typing import Any

import numpy as np

from coupler.limits import MAX_STEPS_PER_CONTROL
from coupler.serve.batched_worlds import check_world_control
from coupler.wire.world_frames import WorldControl, encode_world_control


def frame_of(control: WorldControl) -> bytes:
    return encode_world_control(control.worlds, control.controls, control.steps, control.resets.tolist(),
                                control.qpos, control.qvel)


def run_batch(batch: Any, control: WorldControl, sensors_out: np.ndarray, times_out: np.ndarray) -> None:
    """Step `control` on `batch` (a WorldBatch), every step at once, reading every world into `sensors_out` and
    `times_out`; ProtocolError, nothing changed, for a Control the server refuses."""
    check_world_control(control, batch)
    batch.check(control)
    outcome = batch.hot_path(sensors_out, times_out, MAX_STEPS_PER_CONTROL).step_control(frame_of(control))
    assert outcome is not None and not outcome.failure, outcome
