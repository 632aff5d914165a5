"""examples.train_arm_reach end to end on a tiny budget: it trains, measures both policies and writes its results.

Needs the examples venv (examples/setup); skipped without Stable-Baselines3.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mujoco")
pytest.importorskip("stable_baselines3", reason="Stable-Baselines3 and torch live in .venv-examples (examples/setup), "
                                                "not in coupler's dependencies")

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("train")
    subprocess.run([sys.executable, "-m", "examples.train_arm_reach", "--timesteps", "64", "--envs", "2",
                    "--eval-episodes", "2", "--out", str(out)], cwd=ROOT, check=True, timeout=300)
    return out


def test_it_writes_the_random_and_the_trained_policys_mean_episode_reward_and_length(results):
    written = json.loads((results / "arm_reach_ppo.json").read_text())
    assert written["env_id"] == "coupler/ArmReach-v0"
    for policy in ("random", "trained"):
        assert written[policy]["mean_episode_reward"] < 0
        assert 1 <= written[policy]["mean_episode_steps"] <= 250
        assert 0 <= written[policy]["reached"] <= 1
    assert written["timesteps"] >= 64


def test_it_writes_one_curve_point_per_rollout_in_which_episodes_ended(results):
    with open(results / "arm_reach_ppo.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(row["timesteps"]) for row in rows] == [8192]  # one rollout: 4096 steps of each of the 2 worlds
    assert int(rows[0]["episodes"]) >= 2 * (4096 // 250)  # episodes last 250 steps at most; reaching ends one sooner


def test_it_draws_the_curve_as_a_png(results):
    assert (results / "arm_reach_ppo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
