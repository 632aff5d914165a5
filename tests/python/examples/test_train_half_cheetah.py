"""examples.train_half_cheetah on a tiny budget: PPO learns the same curve on coupler's and Gymnasium's HalfCheetah.

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
ENVS = 2
EPISODE = 50
ROLLOUT = 2048  # the script's rollouts: 2048 steps over all environments


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("train")
    # Two rollouts, so the second is of the policy after one PPO update on each side.
    subprocess.run([sys.executable, "-m", "examples.train_half_cheetah", "--timesteps", str(2 * ROLLOUT),
                    "--envs", str(ENVS), "--episode-steps", str(EPISODE), "--seeds", "3", "--out", str(out)],
                   cwd=ROOT, check=True, timeout=600)
    return out


def _curves(results: Path) -> dict[str, list[tuple[int, str, int]]]:
    with open(results / "half_cheetah_ppo.csv") as f:
        rows = list(csv.DictReader(f))
    return {side: [(int(row["timesteps"]), row["mean_episode_reward"], int(row["episodes"]))
                   for row in rows if row["side"] == side] for side in ("coupler", "gymnasium")}


def test_both_sides_learn_the_same_curve_bit_for_bit_from_the_same_seed(results):
    written = json.loads((results / "half_cheetah_ppo.json").read_text())
    assert written["comparisons"] == [{"seed": 3, "identical": True, "max_abs_difference": 0.0}]
    curves = _curves(results)
    assert curves["coupler"] == curves["gymnasium"]


def test_the_curve_has_a_point_per_rollout_of_the_episodes_that_ended_in_it(results):
    per_rollout = ENVS * (ROLLOUT // ENVS // EPISODE)  # the environments' episodes end on the same steps
    curve = _curves(results)["coupler"]
    assert [(timesteps, episodes) for timesteps, _, episodes in curve] == [(ROLLOUT, per_rollout),
                                                                           (2 * ROLLOUT, per_rollout)]


def test_each_run_records_its_wall_time_its_env_share_and_the_package_versions(results):
    written = json.loads((results / "half_cheetah_ppo.json").read_text())
    assert [(run["side"], run["env_id"], run["seed"]) for run in written["runs"]] == [
        ("coupler", "coupler/HalfCheetah-v5", 3), ("gymnasium", "HalfCheetah-v5", 3)]
    for run in written["runs"]:
        assert run["timesteps"] == 2 * ROLLOUT
        assert 0 < run["env_seconds"] < run["training_seconds"]
    assert set(written["versions"]) == {"torch", "stable-baselines3", "gymnasium", "mujoco", "numpy", "python"}
    assert "examples.train_half_cheetah --timesteps 4096" in written["command"]


def test_it_draws_both_curves_as_a_png_and_again_from_its_json(results, tmp_path):
    assert (results / "half_cheetah_ppo.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    copy = tmp_path / "figure.png"
    subprocess.run([sys.executable, "-m", "examples.train_half_cheetah", "--replot", "--out", str(results),
                    "--figure-copy", str(copy)], cwd=ROOT, check=True, timeout=120)
    assert copy.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
