"""CouplerVectorEnv's partial reset: Gymnasium's options["reset_mask"] restarts only the marked worlds."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

from coupler.gym import CouplerVectorEnv  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402

ARM_TIME_STEP = 0.002
FRAME_SKIP = 2


@pytest.fixture(scope="module")
def reach_vector():
    envs = CouplerVectorEnv(3, scene="arm", task="ArmReach", frame_skip=FRAME_SKIP, max_episode_steps=3)
    yield envs
    envs.close()


def test_a_partial_reset_restarts_the_marked_worlds_from_the_state_their_seed_draws(reach_vector):
    first, _ = reach_vector.reset(seed=4)
    reach_vector.step(reach_vector.action_space.sample())
    observations, infos = reach_vector.reset(seed=4, options={"reset_mask": np.array([True, False, True])})
    np.testing.assert_array_equal(observations[[0, 2]], first[[0, 2]])
    assert infos["simulated_time"][[0, 2]].tolist() == [0.0, 0.0]


def test_a_partial_reset_leaves_the_other_worlds_where_they_were(reach_vector):
    reach_vector.reset(seed=0)
    stepped, _, _, _, _ = reach_vector.step(reach_vector.action_space.sample())
    observations, infos = reach_vector.reset(options={"reset_mask": np.array([True, False, True])})
    np.testing.assert_array_equal(observations[1], stepped[1])
    assert infos["simulated_time"][1] == pytest.approx(FRAME_SKIP * ARM_TIME_STEP)


def test_an_unmarked_world_goes_on_with_its_episode_after_a_partial_reset(reach_vector):
    reach_vector.reset(seed=0)
    action = reach_vector.action_space.sample()
    reach_vector.step(action)
    reach_vector.reset(options={"reset_mask": np.array([False, True, False])})
    reach_vector.step(action)
    _, _, _, truncated, infos = reach_vector.step(action)
    assert truncated.tolist() == [True, False, True]
    assert infos["simulated_time"] == pytest.approx(np.array([3, 2, 3]) * FRAME_SKIP * ARM_TIME_STEP)


def test_a_world_reset_by_mask_after_its_episode_ended_steps_its_next_action_instead_of_restarting(reach_vector):
    reach_vector.reset(seed=0)
    action = reach_vector.action_space.sample()
    for _ in range(3):
        _, _, _, truncated, _ = reach_vector.step(action)
    assert truncated.all()
    reach_vector.reset(options={"reset_mask": np.array([True, True, True])})
    _, rewards, _, _, infos = reach_vector.step(action)
    assert infos["simulated_time"] == pytest.approx([FRAME_SKIP * ARM_TIME_STEP] * 3)
    assert (rewards < 0).all()


def test_a_reset_mask_that_marks_no_world_is_refused(reach_vector):
    with pytest.raises(Error, match="resets no world"):
        reach_vector.reset(options={"reset_mask": np.zeros(3, dtype=bool)})


def test_a_reset_mask_of_the_wrong_shape_is_refused_naming_the_shape_it_needs(reach_vector):
    with pytest.raises(Error, match=r"must be a bool array of shape \(3,\), got ndarray bool \(2,\)"):
        reach_vector.reset(options={"reset_mask": np.ones(2, dtype=bool)})
