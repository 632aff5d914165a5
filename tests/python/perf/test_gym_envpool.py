"""perf.gym against EnvPool: ratios to its better mode and to the limit on every core, EnvPool's child process,
and a run without EnvPool's venv saying so."""

import json

import pytest

import perf.gym as gym
from perf.gym.envpool_stepper import DEFAULT_ENVPOOL_PYTHON, EnvPoolStepper
from perf.gym.measure import Block
from perf.gym.render import render


def _block(subject: str, repeat: int, wall_s: float, cpu_s: float | None = None, envs: int = 64,
           model: str = "ant") -> Block:
    return Block(subject, model, envs, repeat, steps=10, wall_s=wall_s, cpu_s=wall_s if cpu_s is None else cpu_s)


def _row(rows: list[dict], subject: str, model: str = "ant", envs: int = 64) -> dict:
    return next(r for r in rows if (r["subject"], r["model"], r["envs"]) == (subject, model, envs))


def test_the_ratio_to_envpool_is_against_the_better_of_its_sync_and_async_modes_in_the_same_repeat():
    blocks = [_block("coupler", 0, 1.0), _block("envpool", 0, 2.0), _block("envpool-async", 0, 1.5),
              _block("coupler", 1, 1.0), _block("envpool", 1, 0.5), _block("envpool-async", 1, 4.0)]
    assert _row(gym.summarise(blocks), "coupler")["vs_best_envpool"] == pytest.approx((1.5 + 0.5) / 2)


def test_the_share_of_the_limit_over_all_cores_is_against_one_cores_rate_times_the_cores():
    blocks = [_block("coupler", 0, 1.0, cpu_s=2.0), _block("inprocess", 0, 1.5)]
    assert _row(gym.summarise(blocks, cores=2), "coupler")["vs_inprocess_all_cores"] == pytest.approx(0.75)


def test_the_quick_run_measures_envpool_in_sync_mode_on_ant_at_eight_environments_only():
    kept = [(subject, model, envs) for subject in ("envpool", "envpool-async") for model in ("ant", "humanoid")
            for envs in (1, 8) if not gym._quick_leaves_out(subject, model, envs)]
    assert kept == [("envpool", "ant", 8)]


def test_a_run_without_envpools_venv_leaves_it_out_and_says_why(tmp_path):
    missing = tmp_path / "no-venv" / "bin" / "python"
    assert gym.main(["--models", "arm", "--envs", "1", "--subjects", "inprocess,envpool", "--env-steps", "2",
                     "--repeats", "1", "--envpool-python", str(missing), "--out", str(tmp_path)]) == 0
    result = json.loads((tmp_path / "gym.json").read_text())
    assert result["envpool"] == {"missing": f"{missing} does not exist (scripts/setup creates .venv-envpool)"}
    assert f"EnvPool: not measured: {missing} does not exist" in render(result)


def test_envpools_child_steps_the_blocks_asked_for_with_gymnasiums_frame_skip():
    assert DEFAULT_ENVPOOL_PYTHON.exists(), f"{DEFAULT_ENVPOOL_PYTHON} not found: run scripts/setup"
    stepper = EnvPoolStepper("Ant-v5", envs=4, batch=2, python=DEFAULT_ENVPOOL_PYTHON)
    try:
        wall, cpu = stepper.timed_block(8)
    finally:
        stepper.close()
    assert stepper.ready["frame_skip"] == 5 and stepper.action_size == 8
    assert wall > 0 and cpu > 0
    assert stepper.process.returncode == 0


def test_a_result_names_the_envpool_python_as_the_checkout_does_not_as_this_machine_does():
    from pathlib import Path

    import perf.gym as gym

    root = Path(gym.__file__).resolve().parents[2]
    assert gym._shown_path(str(root / ".venv-envpool" / "bin" / "python")) == ".venv-envpool/bin/python"
    assert gym._shown_path("/opt/peers/envpool/bin/python") == "envpool/bin/python"
