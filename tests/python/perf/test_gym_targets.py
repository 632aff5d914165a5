"""perf.gym's targets: judged repeat by repeat on coupler's tasks (the faster of one and two servers), against
EnvPool's and Gymnasium's faster mode and the in-process limit, met, missed, noisy or not measured."""

from dataclasses import asdict

from perf.gym import targets
from perf.gym.measure import Block


def _blocks(rates: dict[str, list[float]], model: str = "ant", envs: int = 64, cpu_s: float = 1.0) -> list[dict]:
    """Blocks of one point: per subject, its env steps/s in repeat 0, 1, ..."""
    return [asdict(Block(subject, model, envs, repeat, steps=10, wall_s=envs * 10 / rate, cpu_s=cpu_s))
            for subject, per_repeat in rates.items() for repeat, rate in enumerate(per_repeat)]


def _verdict(blocks: list[dict], model: str = "ant", measure: str = "envpool", limit: float = 1.2):
    return targets.judge(targets.Target(model, measure, limit, "them"), blocks, cores=2)


def test_coupler_is_the_faster_of_its_two_task_subjects_against_the_faster_envpool_mode_in_each_repeat():
    blocks = _blocks({"task": [1300, 1000, 1300], "task-2servers": [1000, 1400, 1000],
                      "envpool": [1000, 1000, 500], "envpool-async": [500, 1000, 1000]})
    verdict = _verdict(blocks)
    assert verdict.measured.startswith("1.30 × (1.30–1.40)")
    assert verdict.met is True


def test_a_target_below_its_limit_in_every_repeat_is_missed():
    verdict = _verdict(_blocks({"task": [1000, 1010, 1020], "envpool": [1000, 1000, 1000]}))
    assert verdict.met is False and not verdict.noisy


def test_a_target_whose_repeats_cross_its_limit_is_not_judged_but_noisy():
    verdict = _verdict(_blocks({"task": [1100, 1150, 1300], "envpool": [1000, 1000, 1000]}))
    assert verdict.met is None and verdict.noisy


def test_the_tasks_are_judged_even_where_coupler_scene_subjects_were_faster():
    blocks = _blocks({"task": [1000] * 3, "coupler-2threads": [9000] * 3, "envpool": [1000] * 3})
    verdict = _verdict(blocks, limit=1.0)
    assert "coupler's task" in verdict.target and verdict.measured.startswith("1.00 ×")


def test_the_limit_over_all_cores_is_one_cores_in_process_rate_times_the_cpus():
    verdict = _verdict(_blocks({"task": [1800] * 3, "inprocess": [1000] * 3}), measure="all_cores", limit=0.85)
    assert verdict.measured.startswith("0.90 ×") and verdict.met is True


def test_a_target_without_its_rows_is_not_measured():
    verdict = _verdict(_blocks({"task": [1000] * 3, "sync": [500] * 3}))
    assert verdict.met is None and not verdict.noisy and verdict.measured.startswith("not measured")


def test_the_rate_at_256_environments_is_held_against_the_same_subjects_rate_at_64():
    blocks = _blocks({"task": [1000] * 3}) + _blocks({"task": [850] * 3}, envs=256)
    verdict = targets.judge_scaling("ant", blocks)
    assert verdict.measured.startswith("0.85 ×") and verdict.met is False
