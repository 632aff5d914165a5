"""coupler's HalfCheetah, Hopper, Walker2d, Swimmer, InvertedPendulum, Ant and Humanoid -v5 equal Gymnasium's own,
stepped side by side."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

import coupler.gym  # noqa: E402,F401  (registers the coupler ids)
from coupler.gym import CouplerEnv, CouplerVectorEnv  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402

TASKS = ["HalfCheetah-v5", "Hopper-v5", "Walker2d-v5", "Swimmer-v5", "InvertedPendulum-v5", "Ant-v5", "Humanoid-v5"]
STEPS = 1000


def _make_pair(task: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Gymnasium's models use a compiler attribute MuJoCo deprecates
        return gymnasium.make(f"coupler/{task}"), gymnasium.make(task)


def _assert_same_info(ours: dict, theirs: dict) -> None:
    assert set(ours) - {"simulated_time"} == set(theirs)
    for key, value in theirs.items():
        np.testing.assert_array_equal(ours[key], value, err_msg=key)


@pytest.mark.parametrize("task", TASKS)
def test_steps_and_resets_equal_gymnasiums_bit_for_bit(task):
    ours, theirs = _make_pair(task)
    try:
        assert ours.action_space == theirs.action_space
        assert ours.observation_space.shape == theirs.observation_space.shape
        assert ours.spec.max_episode_steps == theirs.spec.max_episode_steps
        actions = np.random.default_rng(7)
        observation, info = ours.reset(seed=11)
        expected, expected_info = theirs.reset(seed=11)
        np.testing.assert_array_equal(observation, expected)
        _assert_same_info(info, expected_info)
        episodes = 0
        for _ in range(STEPS):
            # Random actions anywhere in the space, beyond it a little too (MuJoCo clamps ctrl to its range).
            action = actions.uniform(-1.2, 1.2, ours.action_space.shape).astype(np.float32)
            observation, reward, terminated, truncated, info = ours.step(action)
            expected, expected_reward, expected_terminated, expected_truncated, expected_info = theirs.step(action)
            np.testing.assert_array_equal(observation, expected)
            assert reward == expected_reward
            assert (terminated, truncated) == (expected_terminated, expected_truncated)
            _assert_same_info(info, expected_info)
            if terminated or truncated or actions.random() < 0.01:
                episodes += 1
                observation, info = ours.reset()
                expected, expected_info = theirs.reset()
                np.testing.assert_array_equal(observation, expected)
                _assert_same_info(info, expected_info)
        assert episodes >= 2
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize(("task", "worlds", "steps"), [("Hopper-v5", 3, 300), ("Humanoid-v5", 2, 100)])
def test_vector_env_equals_gymnasiums_sync_vector_env(task, worlds, steps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = gymnasium.make_vec(f"coupler/{task}", num_envs=worlds)
        theirs = gymnasium.make_vec(task, num_envs=worlds, vectorization_mode="sync")
    try:
        assert ours.single_action_space == theirs.single_action_space
        actions = np.random.default_rng(3)
        observations, infos = ours.reset(seed=5)
        expected, expected_infos = theirs.reset(seed=5)
        np.testing.assert_array_equal(observations, expected)
        np.testing.assert_array_equal(infos["x_position"], expected_infos["x_position"])
        ends = 0
        for _ in range(steps):
            action = actions.uniform(-1.0, 1.0, ours.action_space.shape).astype(np.float32)
            observations, rewards, terminated, truncated, infos = ours.step(action)
            expected, expected_rewards, expected_terminated, expected_truncated, expected_infos = theirs.step(action)
            np.testing.assert_array_equal(observations, expected)
            np.testing.assert_array_equal(rewards, expected_rewards)
            np.testing.assert_array_equal(terminated, expected_terminated)
            np.testing.assert_array_equal(truncated, expected_truncated)
            assert set(infos) - {"simulated_time", "_simulated_time"} == set(expected_infos)
            for key, value in expected_infos.items():
                mask = expected_infos[key if key.startswith("_") else f"_{key}"]
                np.testing.assert_array_equal(np.asarray(infos[key])[mask], np.asarray(value)[mask], err_msg=key)
            ends += int(terminated.sum())
        assert ends >= 3  # autoresets were compared too
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("make", [lambda: gymnasium.make("coupler/HalfCheetah-v5"),
                                  lambda: gymnasium.make_vec("coupler/HalfCheetah-v5", num_envs=2)], ids=["env", "vector"])
def test_observations_are_laid_out_in_c_order_as_gymnasiums(make):
    # Same numbers in another memory layout can make a policy's arithmetic round differently.
    env = make()
    try:
        observation, _ = env.reset(seed=0)
        assert observation.flags["C_CONTIGUOUS"]
        observation = env.step(env.action_space.sample())[0]
        assert observation.flags["C_CONTIGUOUS"]
    finally:
        env.close()


def test_observation_and_action_names_label_every_index():
    ours, theirs = _make_pair("Hopper-v5")
    try:
        names = ours.unwrapped.observation_names
        assert len(names) == ours.observation_space.shape[0]
        assert names[:2] == ["rootz position", "rooty position"]
        assert ours.unwrapped.action_names == ["thigh_joint", "leg_joint", "foot_joint"]
    finally:
        ours.close()
        theirs.close()


@pytest.mark.parametrize("make", [CouplerEnv, lambda **kw: CouplerVectorEnv(2, **kw)], ids=["env", "vector"])
def test_a_task_served_another_scene_is_refused_naming_its_model_and_stops_the_server(make, monkeypatch):
    stopped = []
    close = coupler.gym.env.ServeProcess.close
    monkeypatch.setattr(coupler.gym.env.ServeProcess, "close", lambda self: (stopped.append(self), close(self)))
    with pytest.raises(Error, match="the served scene is not half_cheetah.xml"):
        make(scene="arm", task="HalfCheetah-v5")
    assert stopped and all(process.poll() is not None for process in stopped)


def test_a_step_before_reset_is_refused():
    env = CouplerEnv(task="Swimmer-v5")
    try:
        with pytest.raises(Error, match="call reset"):
            env.step(env.action_space.sample())
    finally:
        env.close()


def test_a_task_reading_world_data_refuses_servers_that_send_none_naming_the_flag(tmp_path):
    from peers import coupler_server

    from coupler.gym.tasks.gymnasium_locomotion import GYMNASIUM_ASSETS

    address = f"ipc://{tmp_path}/ant"
    with coupler_server(address, "--scene", str(GYMNASIUM_ASSETS / "ant.xml"), "--worlds", "2"):
        envs = CouplerVectorEnv(2, task="Ant-v5", addresses=[address])
        try:
            with pytest.raises(Error, match="sends no world data, which the task reads: serve it with --world-data "
                                            "qpos,qvel,xpos,cfrc_ext"):
                envs.reset(seed=0)
        finally:
            envs.close()
