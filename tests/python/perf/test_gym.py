"""perf.gym: ratios taken within a repeat, its forms' defaults, the command a result shows, and tiny real runs."""

import os

import numpy as np
import pytest

import perf.gym as gym
from perf.gym.measure import Block, applies, make_stepper, time_block
from perf.gym.render import render


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


def test_the_full_run_measures_the_tasks_against_envpool_gymnasium_and_the_limit_at_16_64_and_256():
    args = gym.parse_args([])
    assert (args.models, args.envs, args.form.result) == (("ant", "humanoid"), (16, 64, 256), "gym")
    assert args.subjects == ("task", "task-2servers", "sync", "async", "inprocess", "envpool", "envpool-async")


def test_the_ray_run_measures_pools_of_one_two_and_four_servers_into_a_result_of_its_own():
    args = gym.parse_args(["--ray"])
    assert args.form.result == "gym_ray"
    assert {"ray-1server", "ray-2servers", "ray-4servers"} <= set(args.subjects)


def test_quick_and_ray_are_refused_together():
    with pytest.raises(SystemExit):
        gym.parse_args(["--quick", "--ray"])


def test_a_result_shows_the_command_without_where_it_was_written_or_this_machines_python():
    command = gym.command_of(["--envs", "64", "--out", "/tmp/x", "--envpool-python=/opt/p/bin/python", "--ray"])
    assert command == "python -m perf.gym --envs 64 --ray"


def test_a_pool_of_four_servers_is_measured_only_when_four_divide_the_environments():
    assert [n for n in (2, 4, 6, 8) if applies("ray-4servers", "ant", n)] == [4, 8]


def test_the_task_on_two_servers_steps_the_task_on_two_servers_sharing_the_cpus_threads():
    stepper = make_stepper("task-2servers", "halfcheetah", 2)
    try:
        threads = [process.command[process.command.index("--threads") + 1] for process in stepper.envs._processes]
        block = time_block(stepper, "task-2servers", "halfcheetah", 2, 0, np.zeros((3, 2, 6)))
    finally:
        stepper.close()
    assert threads == [str(max(1, len(os.sched_getaffinity(0)) // 2))] * 2
    assert block.steps == 3 and block.wall_s > 0


def _result(**extra) -> dict:
    blocks = [_block("ray-4servers", 0, 1.0, 1.0), _block("inprocess", 0, 1.5, 1.5)]
    return {"measured_at": "now", "host": {"cpu": "cpu", "logical_cpus": 2}, "rows": gym.summarise(blocks, cores=2),
            "blocks": [vars(b) for b in blocks], "command": "python -m perf.gym --ray", "duration_s": 90.0,
            **extra}


def test_the_ray_runs_table_says_which_nodes_its_pools_servers_ran_on_and_judges_no_targets():
    table = render(_result(settings={"repeats": 1, "env_steps": 640, "form": "ray"},
                           ray={"nodes": 2, "cpus_per_node": 1, "servers_on_nodes": {"ray-4servers, ant, N=64": 2}}))
    assert "ray-4servers, ant, N=64: 2 nodes" in table
    assert "| target" not in table


def test_a_results_table_shows_the_command_that_measures_it_again_and_how_long_it_took():
    table = render(_result(settings={"repeats": 1, "env_steps": 640, "form": "full"}))
    assert "Measured by `python -m perf.gym --ray`" in table and "The run took 90 s (1.5 min)." in table
    assert "| target" in table
