"""SameStepAutoreset: CouplerVectorEnv stepped with SB3's autoreset semantics (no SB3 or torch needed)."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorWrapper  # noqa: E402
from gymnasium.wrappers import TimeLimit  # noqa: E402

from coupler.gym import CouplerEnv, CouplerVectorEnv  # noqa: E402
from examples.same_step_autoreset import SameStepAutoreset  # noqa: E402

ENVS = 3
EPISODE = 3
FRAME_SKIP = 2
ARM_TIME_STEP = 0.002


class EndsAfterTwoActions:
    """Terminated once two actions have been held: an episode the task ends, not its time limit."""

    def reward(self, readings, action) -> float:
        return float(readings.time)

    def terminated(self, readings) -> bool:
        return readings.time >= 2 * FRAME_SKIP * ARM_TIME_STEP - 1e-9


class CountsResets(VectorWrapper):
    def __init__(self, envs) -> None:
        super().__init__(envs)
        self.resets = 0

    def reset(self, **kwargs):
        self.resets += 1
        return self.env.reset(**kwargs)


@pytest.fixture(scope="module")
def reach():
    steps = SameStepAutoreset(CountsResets(CouplerVectorEnv(ENVS, scene="arm", task="ArmReach", frame_skip=FRAME_SKIP,
                                                            max_episode_steps=EPISODE)))
    yield steps
    steps.close()


@pytest.fixture(scope="module")
def ending():
    steps = SameStepAutoreset(CouplerVectorEnv(2, scene="arm", task=EndsAfterTwoActions(), frame_skip=FRAME_SKIP,
                                               max_episode_steps=10))
    yield steps
    steps.close()


def _actions(space, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    return [rng.uniform(space.low, space.high) for _ in range(count)]


def test_it_steps_as_gymnasiums_same_step_autoreset_over_single_envs_episode_ends_included(reach):
    singles = SyncVectorEnv([lambda: TimeLimit(CouplerEnv(scene="arm", task="ArmReach", frame_skip=FRAME_SKIP), EPISODE)
                             for _ in range(ENVS)], autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        expected_first, _ = singles.reset(seed=11)
        first, _ = reach.reset([11 + i for i in range(ENVS)])
        np.testing.assert_array_equal(first, expected_first)
        for step, action in enumerate(_actions(singles.action_space, 2 * EPISODE + 1)):
            observations, rewards, dones, infos = reach.step(action)
            expected, expected_rewards, terminated, truncated, expected_infos = singles.step(action)
            np.testing.assert_array_equal(observations, expected, err_msg=f"observations of step {step + 1}")
            np.testing.assert_allclose(rewards, expected_rewards, rtol=1e-6, err_msg=f"rewards of step {step + 1}")
            np.testing.assert_array_equal(dones, terminated | truncated, err_msg=f"dones of step {step + 1}")
            for i in np.flatnonzero(dones):
                np.testing.assert_array_equal(infos[i]["terminal_observation"], expected_infos["final_obs"][i])
    finally:
        singles.close()
    assert step + 1 > EPISODE  # at least one episode ended on the way


def test_the_step_that_ends_an_episode_returns_the_next_episodes_first_observation(ending):
    first, _ = ending.reset([0, 1])
    for action in _actions(ending.envs.action_space, 2):
        observations, _, dones, infos = ending.step(action)
    assert dones.all()
    np.testing.assert_array_equal(observations, first)  # no reset_state: every episode starts from the scene's state
    assert all(not np.array_equal(info["terminal_observation"], first[i]) for i, info in enumerate(infos))


def test_the_step_after_an_episode_end_takes_its_action_instead_of_restarting(reach):
    reach.reset([0, 1, 2])
    for action in _actions(reach.envs.action_space, EPISODE + 1):
        _, rewards, _, infos = reach.step(action)
    assert [info["simulated_time"] for info in infos] == pytest.approx([FRAME_SKIP * ARM_TIME_STEP] * ENVS)
    assert (rewards < 0).all()


def test_an_episode_cut_off_by_its_time_limit_is_marked_truncated_for_bootstrapping(reach):
    reach.reset([0, 1, 2])
    for action in _actions(reach.envs.action_space, EPISODE):
        _, _, dones, infos = reach.step(action)
    assert dones.all()
    assert [info["TimeLimit.truncated"] for info in infos] == [True] * ENVS


def test_an_episode_the_task_ended_is_not_marked_truncated(ending):
    ending.reset([0, 1])
    for action in _actions(ending.envs.action_space, 2):
        _, rewards, dones, infos = ending.step(action)
    assert dones.all()
    assert [info["TimeLimit.truncated"] for info in infos] == [False, False]
    assert rewards == pytest.approx([2 * FRAME_SKIP * ARM_TIME_STEP] * 2)  # the ending step's reward, not the restart's


def test_steps_that_end_no_episode_cost_no_reset(reach):
    reach.reset([0, 1, 2])
    before = reach.envs.resets
    for action in _actions(reach.envs.action_space, EPISODE - 1):
        reach.step(action)
    assert reach.envs.resets == before


def test_a_vector_env_that_autoresets_in_the_same_step_already_is_refused():
    envs = SyncVectorEnv([lambda: gymnasium.make("CartPole-v1")], autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        with pytest.raises(ValueError, match="needs NEXT_STEP"):
            SameStepAutoreset(envs)
    finally:
        envs.close()


class FortranOrder(VectorWrapper):
    """Observations in Fortran order, as Gymnasium's tasks served by coupler give them."""

    def reset(self, **kwargs):
        observations, infos = self.env.reset(**kwargs)
        return np.asfortranarray(observations), infos

    def step(self, actions):
        observations, *rest = self.env.step(actions)
        return np.asfortranarray(observations), *rest


def test_observations_come_in_c_order_whatever_the_vector_envs_layout():
    # A policy's matrix products may add in another order over another layout: the last bit of its actions differs.
    steps = SameStepAutoreset(FortranOrder(SyncVectorEnv([lambda: gymnasium.make("CartPole-v1")
                                                          for _ in range(2)])))
    try:
        first, _ = steps.reset([0, 1])
        observations, _, _, _ = steps.step(np.array([0, 1]))
    finally:
        steps.close()
    assert first.flags.c_contiguous and observations.flags.c_contiguous
