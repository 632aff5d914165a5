"""CouplerVectorEnv: N worlds of batched servers behaving as N CouplerEnvs in Gymnasium's SyncVectorEnv."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from gymnasium.wrappers import TimeLimit  # noqa: E402

from coupler.gym import CouplerEnv, CouplerVectorEnv  # noqa: E402
from coupler.scenes import SCENES_DIR  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402

ARM_TIME_STEP = 0.002
ENVS = 3
EPISODE = 4


@pytest.fixture(scope="module")
def reach_vector():
    envs = CouplerVectorEnv(ENVS, scene="arm", task="ArmReach", frame_skip=2, max_episode_steps=EPISODE)
    yield envs
    envs.close()


def _steps(envs, actions: list[np.ndarray], seed: int) -> list[tuple]:
    outcomes = [envs.reset(seed=seed)[0]]
    for action in actions:
        observations, rewards, terminated, truncated, infos = envs.step(action)
        outcomes.append((observations, rewards, terminated, truncated, infos["simulated_time"]))
    return outcomes


def test_make_vec_of_a_coupler_id_gives_a_coupler_vector_env_of_that_many_worlds():
    envs = gymnasium.make_vec("coupler/ArmReach-v0", num_envs=2)
    try:
        assert isinstance(envs.unwrapped, CouplerVectorEnv)
        assert envs.num_envs == 2
        assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
        assert envs.max_episode_steps == 250
    finally:
        envs.close()


def test_make_vec_of_any_scene_holds_each_action_for_frame_skip_steps():
    envs = gymnasium.make_vec("coupler/Scene-v0", num_envs=2, scene=str(SCENES_DIR / "arm.xml"), frame_skip=5)
    try:
        envs.reset(seed=0)
        _, rewards, _, _, infos = envs.step(envs.action_space.sample())
        assert infos["simulated_time"] == pytest.approx([5 * ARM_TIME_STEP] * 2)
        assert rewards.tolist() == [0.0, 0.0]
    finally:
        envs.close()


def test_the_worlds_follow_the_trajectories_of_single_envs_in_a_sync_vector_env_autoresets_included(reach_vector):
    singles = SyncVectorEnv([lambda: TimeLimit(CouplerEnv(scene="arm", task="ArmReach", frame_skip=2), EPISODE)
                             for _ in range(ENVS)])
    try:
        rng = np.random.default_rng(1)
        actions = [rng.uniform(reach_vector.action_space.low, reach_vector.action_space.high) for _ in range(9)]
        expected = _steps(singles, actions, seed=7)
        got = _steps(reach_vector, actions, seed=7)
    finally:
        singles.close()
    np.testing.assert_array_equal(got[0], expected[0])
    for step, (mine, theirs) in enumerate(zip(got[1:], expected[1:])):
        for name, a, b in zip(("observations", "rewards", "terminated", "truncated", "times"), mine, theirs):
            np.testing.assert_array_equal(a, b, err_msg=f"{name} of step {step + 1}")


def test_a_world_whose_episode_ended_restarts_on_the_next_step_ignoring_its_action():
    envs = CouplerVectorEnv(2, scene="arm", frame_skip=2, max_episode_steps=2)
    try:
        first, _ = envs.reset(seed=2)
        action = envs.action_space.sample()
        for _ in range(2):
            _, _, _, truncated, _ = envs.step(action)
        assert truncated.all()
        observations, rewards, terminated, truncated, infos = envs.step(action)
        assert rewards.tolist() == [0.0, 0.0]
        assert not terminated.any() and not truncated.any()
        assert infos["simulated_time"].tolist() == [0.0, 0.0]
        np.testing.assert_array_equal(observations, first)
    finally:
        envs.close()


def test_reset_with_the_same_seed_starts_every_world_from_the_same_state(reach_vector):
    first, _ = reach_vector.reset(seed=5)
    reach_vector.step(reach_vector.action_space.sample())
    again, _ = reach_vector.reset(seed=5)
    np.testing.assert_array_equal(again, first)
    assert not np.array_equal(first[0], first[1])  # each world its own generator: the box moves differently


def test_two_servers_step_the_same_trajectories_as_one():
    rng = np.random.default_rng(3)
    one = CouplerVectorEnv(4, scene="arm", task="ArmReach", frame_skip=2, max_episode_steps=EPISODE)
    two = CouplerVectorEnv(4, scene="arm", task="ArmReach", frame_skip=2, max_episode_steps=EPISODE, servers=2)
    try:
        actions = [rng.uniform(one.action_space.low, one.action_space.high) for _ in range(6)]
        for mine, theirs in zip(_steps(two, actions, seed=0), _steps(one, actions, seed=0)):
            for a, b in zip(mine, theirs):
                np.testing.assert_array_equal(a, b)
    finally:
        one.close()
        two.close()


def test_actions_of_the_wrong_shape_are_refused_naming_both_shapes(reach_vector):
    reach_vector.reset(seed=0)
    with pytest.raises(Error, match=r"actions of shape \(2, 8\); this environment's actions have shape \(3, 8\)"):
        reach_vector.step(np.zeros((2, 8)))


@pytest.mark.parametrize(("arguments", "refusal"), [
    ({"num_envs": 0}, "num_envs must be a positive whole number, got 0"),
    ({"num_envs": 2.5}, "num_envs must be a positive whole number, got 2.5"),
    ({"max_episode_steps": 0}, "max_episode_steps must be positive or None, got 0"),
    ({"addresses": ["ipc:///nonexistent/a"], "pool": object()}, "give addresses or a pool, not both"),
    ({"num_envs": 2, "servers": 3}, "servers must be from 1 to num_envs (2), got 3"),
    ({"num_envs": 2, "servers": 0}, "servers must be from 1 to num_envs (2), got 0"),
    ({"num_envs": 2, "servers": 2, "serve_flags": ["--record", "run.mcap"]},
     "serve_flags --record with servers=2: every server would record to the same file; record with servers=1 "
     "(one server records every world)"),
    ({"addresses": ["ipc:///nonexistent/a"], "render_mode": "rgb_array"},
     "render_mode with addresses or a pool needs scene too: the servers' scene, to draw it"),
], ids=["no-envs", "fractional-envs", "no-episode-steps", "addresses-and-pool", "more-servers-than-envs",
        "no-servers", "record-on-every-server", "render-without-scene"])
def test_arguments_that_cannot_make_a_vector_env_are_refused_in_one_line_before_any_server_starts(arguments, refusal):
    with pytest.raises(Error) as refused:
        CouplerVectorEnv(**arguments)
    assert str(refused.value) == refusal


def test_seeds_of_another_count_than_the_worlds_are_refused(reach_vector):
    with pytest.raises(Error, match=f"^2 seeds for {ENVS} environments$"):
        reach_vector.reset(seed=[1, 2])


def test_a_closed_vector_env_refuses_to_step_saying_to_make_a_new_one():
    envs = CouplerVectorEnv(2, scene="arm")
    envs.reset(seed=0)
    envs.close()
    with pytest.raises(Error, match="^this environment is closed: make a new one$"):
        envs.step(np.zeros(envs.action_space.shape))


def test_render_without_a_render_mode_warns_naming_the_modes_and_draws_nothing(reach_vector):
    reach_vector.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode='rgb_array', 'depth_array' or 'human'"):
        assert reach_vector.render() is None


def test_render_before_reset_is_refused():
    envs = CouplerVectorEnv(2, scene="arm", render_mode="rgb_array", width=32, height=24)
    try:
        with pytest.raises(Error, match=r"^render before reset: call reset\(\) first$"):
            envs.render()
    finally:
        envs.close()
