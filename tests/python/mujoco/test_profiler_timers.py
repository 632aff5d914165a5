"""MuJoCo's profiler timers, off in a server: they measure nothing, and the physics stays the same."""

from __future__ import annotations

from collections.abc import Iterator

import mujoco
import numpy as np
import pytest

from coupler.mujoco.native_stepper import mujoco_library
from coupler.mujoco.profiler_timers import set_profiler_timers, stop_profiler_timers

_SCENE = """
<mujoco>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <body pos="0 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
</mujoco>
"""


@pytest.fixture
def timers_restored() -> Iterator[None]:
    """The process's timer callback as it was before the test (it is global to MuJoCo's library)."""
    previous = set_profiler_timers(None)
    set_profiler_timers(previous)
    yield
    set_profiler_timers(previous)


def _stepped(steps: int) -> mujoco.MjData:
    model = mujoco.MjModel.from_xml_string(_SCENE)
    data = mujoco.MjData(model)
    data.qvel[:3] = (0.5, -0.2, 1.0)
    mujoco.mj_step(model, data, nstep=steps)
    return data


def test_stopped_timers_measure_nothing_and_step_the_same(timers_restored: None) -> None:
    assert mujoco_library() is not None
    timed = _stepped(50)
    stop_profiler_timers()
    untimed = _stepped(50)
    step = mujoco.mjtTimer.mjTIMER_STEP
    assert untimed.timer[step].number == 50 and untimed.timer[step].duration == 0.0
    assert np.array_equal(timed.qpos, untimed.qpos) and np.array_equal(timed.qvel, untimed.qvel)
