"""observation_names and action_names: one label per index, in the order of the arrays they label."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

from coupler.gym import CouplerEnv, CouplerVectorEnv  # noqa: E402

DOCS = Path(__file__).resolve().parents[3] / "docs" / "learning.md"


@pytest.fixture(scope="module")
def reach_env():
    env = CouplerEnv(scene="arm", task="ArmReach", frame_skip=5)
    yield env
    env.close()


def test_every_observation_index_has_its_reading_name(reach_env):
    names = reach_env.observation_names
    assert len(names) == reach_env.observation_space.shape[0] == len(set(names))
    assert names[0] == "arm/joint1 position"
    assert names[names.index("arm/tcp position x") + 2] == "arm/tcp position z"
    assert names[-3:] == ["box/angular_velocity_3d x", "box/angular_velocity_3d y", "box/angular_velocity_3d z"]


def test_action_names_are_controls_then_events(reach_env):
    assert reach_env.action_names == [f"arm/joint{k}" for k in range(1, 8)] + ["arm/gripper"]
    assert len(reach_env.action_names) == reach_env.action_space.shape[0]


def test_vector_env_labels_a_single_environment_as_the_env_does(reach_env):
    envs = CouplerVectorEnv(2, scene="arm", task="ArmReach", frame_skip=5)
    try:
        assert envs.single_observation_names == reach_env.observation_names
        assert envs.single_action_names == reach_env.action_names
    finally:
        envs.close()


def test_the_docs_table_of_arm_reach_observations_is_the_env_s(reach_env):
    rows = re.findall(r"^\| (\d+)(?:-(\d+))? \| `([^`]+)`(?: \.\. `([^`]+)`)? \|", DOCS.read_text(), re.MULTILINE)
    listed: dict[int, str] = {}
    for first, last, first_name, last_name in rows:
        listed[int(first)] = first_name
        if last:
            listed[int(last)] = last_name
    names = reach_env.observation_names
    assert max(listed) == len(names) - 1
    assert all(names[i] == name for i, name in listed.items())
