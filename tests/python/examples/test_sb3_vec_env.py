"""Sb3VecEnv: CouplerVectorEnv as Stable-Baselines3's VecEnv.

Needs Stable-Baselines3 and torch, which are not coupler's dependencies: run
it with the examples venv (examples/setup, then
`.venv-examples/bin/python -m pytest tests/python/examples`). The stepping
semantics it relies on are tested without them in test_same_step_autoreset.py.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("stable_baselines3", reason="Stable-Baselines3 and torch live in .venv-examples (examples/setup), "
                                                "not in coupler's dependencies")

from gymnasium.wrappers import TimeLimit  # noqa: E402
from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor, VecNormalize  # noqa: E402

from coupler.gym import CouplerEnv, CouplerVectorEnv  # noqa: E402
from examples.sb3_vec_env import Sb3VecEnv  # noqa: E402

ENVS = 3
EPISODE = 3
FRAME_SKIP = 2


def test_it_steps_as_sb3s_dummy_vec_env_over_single_envs_episode_ends_included():
    ours = Sb3VecEnv(CouplerVectorEnv(ENVS, scene="arm", task="ArmReach", frame_skip=FRAME_SKIP,
                                      max_episode_steps=EPISODE))
    theirs = DummyVecEnv([lambda: TimeLimit(CouplerEnv(scene="arm", task="ArmReach", frame_skip=FRAME_SKIP), EPISODE)
                          for _ in range(ENVS)])
    try:
        ours.seed(9)
        theirs.seed(9)
        np.testing.assert_array_equal(ours.reset(), theirs.reset())
        rng = np.random.default_rng(2)
        ended = 0
        for step in range(2 * EPISODE + 1):
            action = rng.uniform(-1, 1, size=(ENVS, *ours.action_space.shape)).astype(np.float32)
            observations, rewards, dones, infos = ours.step(action)
            expected, expected_rewards, expected_dones, expected_infos = theirs.step(action)
            np.testing.assert_array_equal(observations, expected, err_msg=f"observations of step {step + 1}")
            np.testing.assert_array_equal(rewards, expected_rewards, err_msg=f"rewards of step {step + 1}")
            np.testing.assert_array_equal(dones, expected_dones, err_msg=f"dones of step {step + 1}")
            for i in np.flatnonzero(dones):
                np.testing.assert_array_equal(infos[i]["terminal_observation"],
                                              expected_infos[i]["terminal_observation"])
                assert infos[i]["TimeLimit.truncated"] == expected_infos[i]["TimeLimit.truncated"]
                ended += 1
    finally:
        ours.close()
        theirs.close()
    assert ended == 2 * ENVS


def test_ppo_trains_on_it_through_vec_normalize_counting_every_episode_that_ended():
    envs = VecNormalize(VecMonitor(Sb3VecEnv(CouplerVectorEnv(2, scene="arm", task="ArmReach", frame_skip=FRAME_SKIP,
                                                              max_episode_steps=8))))
    try:
        model = PPO("MlpPolicy", envs, n_steps=16, batch_size=16, n_epochs=1, device="cpu", seed=0)
        model.learn(total_timesteps=32)
    finally:
        envs.close()
    assert model.num_timesteps == 32
    assert [info["l"] for info in model.ep_info_buffer] == [8, 8, 8, 8]


def test_a_subset_of_the_environments_cannot_be_given_an_attribute_of_their_own():
    envs = Sb3VecEnv(CouplerVectorEnv(2, scene="arm", frame_skip=FRAME_SKIP))
    try:
        with pytest.raises(ValueError, match="every environment at once"):
            envs.set_attr("frame_skip", 3, indices=[0])
    finally:
        envs.close()
