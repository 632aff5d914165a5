"""An environment whose server exited, or that was closed, says so at once; a frame_skip no Control can take is
refused when the environment is made."""

from __future__ import annotations

import signal
import time

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

from coupler.gym.env import CouplerEnv  # noqa: E402
from coupler.gym.vector_env import CouplerVectorEnv  # noqa: E402
from coupler.limits import MAX_STEPS_PER_CONTROL  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402


@pytest.mark.parametrize("make", [CouplerEnv, lambda **kw: CouplerVectorEnv(1, **kw)], ids=["env", "vector"])
@pytest.mark.parametrize("frame_skip", [0, 10**9, MAX_STEPS_PER_CONTROL + 1, 2.5, True])
def test_a_frame_skip_no_control_can_take_is_refused_before_a_server_starts(make, frame_skip):
    with pytest.raises(Error, match=f"frame_skip must be a whole number of steps from 1 to {MAX_STEPS_PER_CONTROL}"):
        make(scene="static", frame_skip=frame_skip)


def test_a_step_after_the_server_exited_says_so_at_once_with_its_exit_code():
    env = CouplerEnv(scene="static")
    try:
        env.reset()
        env._server.send_signal(signal.SIGKILL)
        env._server.wait(timeout=10)
        started = time.monotonic()
        with pytest.raises(Error, match=r"server exited \(exit code -9\)"):
            env.step(env.action_space.sample())
        assert time.monotonic() - started < 1.0
    finally:
        env.close()


def test_a_step_after_close_says_the_session_is_closed():
    env = CouplerEnv(scene="static")
    env.reset()
    env.close()
    with pytest.raises(Error, match="is closed"):
        env.step(np.zeros(env.action_space.shape))
