"""perf.gym: ratios taken within a repeat, targets judged at N = 64, and a tiny real run."""

import pytest

import perf.gym as gym
from perf.gym.measure import Block
from perf.gym.render import render, verdicts


def _block(subject: str, repeat: int, wall_s: float, cpu_s: float, envs: int = 64) -> Block:
    return Block(subject, "ant", envs, repeat, steps=10, wall_s=wall_s, cpu_s=cpu_s)


def test_the_ratio_to_gymnasium_is_against_the_better_of_sync_and_async_of_the_same_repeat():
    blocks = [_block("coupler", 0, 1.0, 1.0), _block("sync", 0, 2.0, 2.0), _block("async", 0, 4.0, 4.0),
              _block("coupler", 1, 1.0, 1.0), _block("sync", 1, 8.0, 8.0), _block("async", 1, 3.0, 6.0)]
    coupler = next(r for r in gym.summarise(blocks) if r["subject"] == "coupler")
    assert coupler["vs_best_gymnasium"] == pytest.approx((2.0 + 3.0) / 2)


def test_the_share_of_the_in_process_limit_is_per_cpu_second():
    blocks = [_block("coupler", 0, 1.0, 2.0), _block("inprocess", 0, 1.5, 1.5)]
    coupler = next(r for r in gym.summarise(blocks) if r["subject"] == "coupler")
    assert coupler["vs_inprocess_per_core"] == pytest.approx(0.75)
    assert coupler["cores_used"] == pytest.approx(2.0)


def test_a_target_is_met_missed_or_not_measured():
    blocks = [_block("coupler", 0, 1.0, 2.0), _block("sync", 0, 1.2, 1.2), _block("inprocess", 0, 1.5, 1.5)]
    lines = verdicts({"rows": gym.summarise(blocks)})
    assert any("coupler, ant, N = 64: ≥ 1.3× the better of Gymnasium sync/async: 1.20×, missed" in line
               for line in lines)
    assert any("coupler, ant, N = 64: ≥ 0.75× the in-process limit per core: 0.75×, met" in line for line in lines)
    assert any("coupler-2servers, ant, N = 64: not measured by this run" in line for line in lines)


def test_a_tiny_run_measures_every_subject_asked_for():
    settings = gym.Settings(models=("arm",), envs=(2,), subjects=("coupler", "inprocess"), env_steps=8, repeats=2)
    blocks = gym.measure_point(settings, "arm", 2)
    assert sorted((b.subject, b.repeat) for b in blocks) == [("coupler", 0), ("coupler", 1), ("inprocess", 0),
                                                             ("inprocess", 1)]
    assert all(b.steps == 4 and b.wall_s > 0 and b.cpu_s > 0 for b in blocks)
    rows = gym.summarise(blocks)
    table = render({"measured_at": "now", "host": {"cpu": "cpu", "logical_cpus": 2}, "rows": rows,
                    "settings": {"repeats": 2, "env_steps": 8}})
    assert "| arm   |   2 | coupler   |" in table
