"""The targets perf.gym's figures are held to, judged as perf.common.targets judges the other benchmarks'.

Every target is a ratio of figures measured in the same run. coupler's side is its task equal to Gymnasium's
environment (subjects task and task-2servers: the faster of one server and two in each repeat), or, in a run
that measured no task, the faster of its coupler/Scene-v0 subjects. Ratios are taken repeat by repeat, since
the blocks of one repeat ran back to back through the same load, and reported as the median with the lowest
and highest repeat's; the rate at N = 256 against N = 64, measured minutes apart, is the ratio of medians
with the widest spread the two allow. A target whose rows the run did not measure is "not measured"; one
whose spread crosses its limit, or whose middle repeats lie more than perf.common.paired.MOST_MIDDLE_SPREAD
apart, is "not measured: noisy".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perf.common import paired
from perf.common.markdown import table
from perf.common.spread import Spread
from perf.common.targets import Verdict

TASK_CONTENDERS = ("task", "task-2servers")
SCENE_CONTENDERS = ("coupler", "coupler-2threads", "coupler-2servers")
ENVPOOL_RIVALS = ("envpool", "envpool-async")
GYMNASIUM_RIVALS = ("sync", "async")
TARGET_ENVS, LARGE_ENVS = 64, 256
MODEL_NAMES = {"ant": "Ant-v5", "humanoid": "Humanoid-v5"}


@dataclass(frozen=True)
class Target:
    model: str
    measure: str  # a key of MEASURES
    limit: float
    against: str  # what coupler's figure is set against, as the target says it


# Each repeat's figure of a target, from that repeat's blocks by subject (and the CPUs the limit counts), or
# None when that repeat lacks a side.
Repeat = dict[str, dict[str, Any]]


def _rate(block: dict[str, Any]) -> float:
    return block["envs"] * block["steps"] / block["wall_s"]


def _cpu_per_step(block: dict[str, Any]) -> float:
    return block["cpu_s"] / (block["envs"] * block["steps"])


def _best_rate(repeat: Repeat, subjects: tuple[str, ...]) -> float | None:
    rates = [_rate(repeat[s]) for s in subjects if s in repeat]
    return max(rates) if rates else None


# Each measure gives, for one repeat, coupler's figure and the one it is held against (None when the repeat
# lacks a side), and the unit both are in: the target is on their ratio.
Figures = tuple[float, float] | None


def _versus(rivals: tuple[str, ...]) -> Callable[[Repeat, tuple[str, ...], int], Figures]:
    def figures(repeat: Repeat, ours: tuple[str, ...], cores: int) -> Figures:
        mine, theirs = _best_rate(repeat, ours), _best_rate(repeat, rivals)
        return None if mine is None or theirs is None else (mine, theirs)
    return figures


def _all_cores(repeat: Repeat, ours: tuple[str, ...], cores: int) -> Figures:
    mine = _best_rate(repeat, ours)
    return None if mine is None or "inprocess" not in repeat else (mine, _rate(repeat["inprocess"]) * cores)


def _per_core(repeat: Repeat, ours: tuple[str, ...], cores: int) -> Figures:
    """Env steps per CPU second: the subject's least CPU per step against the limit's."""
    costs = [_cpu_per_step(repeat[s]) for s in ours if s in repeat]
    if not costs or "inprocess" not in repeat:
        return None
    return 1.0 / min(costs), 1.0 / _cpu_per_step(repeat["inprocess"])


MEASURES: dict[str, tuple[Callable[[Repeat, tuple[str, ...], int], Figures], str]] = {
    "envpool": (_versus(ENVPOOL_RIVALS), "env steps/s"),
    "gymnasium": (_versus(GYMNASIUM_RIVALS), "env steps/s"),
    "all_cores": (_all_cores, "env steps/s"),
    "per_core": (_per_core, "env steps per CPU second"),
}
TARGETS = (
    Target("ant", "envpool", 1.2, "EnvPool's faster mode (sync or async)"),
    Target("ant", "all_cores", 0.85, "the in-process limit (one core's mj_step rate) × the CPUs"),
    Target("ant", "gymnasium", 2.5, "Gymnasium's faster vector mode (sync or async)"),
    Target("ant", "per_core", 0.75, "the in-process limit's env steps per CPU second"),
    Target("humanoid", "envpool", 1.0, "EnvPool's faster mode (sync or async)"),
)
# coupler's env steps/s at N = LARGE_ENVS against its own at TARGET_ENVS: no per-environment cost that grows.
SCALING_LIMIT = 0.9
SCALING_MODELS = ("ant", "humanoid")


def _repeats(blocks: list[dict[str, Any]], model: str, envs: int) -> list[Repeat]:
    by_repeat: dict[int, Repeat] = {}
    for block in blocks:
        if (block["model"], block["envs"]) == (model, envs):
            by_repeat.setdefault(block["repeat"], {})[block["subject"]] = block
    return [by_repeat[k] for k in sorted(by_repeat)]


def contenders(repeats: list[Repeat]) -> tuple[str, ...]:
    """coupler's subjects judged at a point: its tasks, unless the run measured its coupler/Scene-v0 subjects
    there and no task."""
    measured = {subject for repeat in repeats for subject in repeat}
    return SCENE_CONTENDERS if measured & set(SCENE_CONTENDERS) and not measured & set(TASK_CONTENDERS) \
        else TASK_CONTENDERS


def _judged(target: str, measured: str, figure: Spread, limit: float, wide: bool) -> Verdict:
    """`wide`: the repeats behind the figure spread too far apart to be read as one measurement."""
    judgement = paired.Judgement.NOISY if wide else paired.at_least(figure, limit)
    if judgement is paired.Judgement.NOISY:
        return Verdict(target, measured, None, noisy=True)
    return Verdict(target, measured, judgement is paired.Judgement.MET)


def _ratio_text(ratio: Spread) -> str:
    if ratio.low == ratio.high:
        return f"{ratio.median:.2f} ×"
    return f"{ratio.median:.2f} × ({ratio.low:.2f}–{ratio.high:.2f})"


def _who(ours: tuple[str, ...]) -> str:
    return "coupler's task (the faster of 1 and 2 servers)" if ours == TASK_CONTENDERS else \
        "coupler/Scene-v0 (its fastest subject)"


def judge(target: Target, blocks: list[dict[str, Any]], cores: int) -> Verdict:
    repeats = _repeats(blocks, target.model, TARGET_ENVS)
    ours = contenders(repeats)
    text = (f"{MODEL_NAMES[target.model]}, N = {TARGET_ENVS}: {_who(ours)} ≥ {target.limit:g} × "
            f"{target.against}")
    measure, unit = MEASURES[target.measure]
    pairs = [figures for figures in (measure(repeat, ours, cores) for repeat in repeats) if figures is not None]
    ratios = [mine / theirs for mine, theirs in pairs]
    spread = Spread.of(ratios)
    if spread is None:
        return Verdict(text, "not measured: this run has no such rows", None)
    mine, theirs = Spread.of([p[0] for p in pairs]), Spread.of([p[1] for p in pairs])
    assert mine is not None and theirs is not None
    measured = (f"{_ratio_text(spread)} over {len(ratios)} repeats ({mine.median:,.0f} against "
                f"{theirs.median:,.0f} {unit}, medians)")
    return _judged(text, measured, spread, target.limit, paired.spread_wide(ratios))


def judge_scaling(model: str, blocks: list[dict[str, Any]]) -> Verdict:
    small, large = _repeats(blocks, model, TARGET_ENVS), _repeats(blocks, model, LARGE_ENVS)
    ours = contenders(small)
    text = (f"{MODEL_NAMES[model]}, N = {LARGE_ENVS}: {_who(ours)} ≥ {SCALING_LIMIT:g} × its env steps/s at "
            f"N = {TARGET_ENVS}")
    small_rates, large_rates = _best_rates(small, ours), _best_rates(large, ours)
    small_spread, large_spread = Spread.of(small_rates), Spread.of(large_rates)
    ratio = paired.bounds_of_ratio(large_spread, small_spread)
    if ratio is None or small_spread is None or large_spread is None:
        return Verdict(text, "not measured: this run has no such rows", None)
    # CPU per env step moves much less with the machine's load than steps/s between the two points' runs.
    cpu = paired.bounds_of_ratio(Spread.of(_least_costs(small, ours)), Spread.of(_least_costs(large, ours)))
    measured = (f"{_ratio_text(ratio)} ({large_spread.median:,.0f} against {small_spread.median:,.0f} env "
                f"steps/s; CPU per env step at N = {TARGET_ENVS} over N = {LARGE_ENVS}'s: "
                f"{'–' if cpu is None else _ratio_text(cpu)})")
    return _judged(text, measured, ratio, SCALING_LIMIT,
                   paired.spread_wide(large_rates) or paired.spread_wide(small_rates))


def _best_rates(repeats: list[Repeat], ours: tuple[str, ...]) -> list[float]:
    return [rate for rate in (_best_rate(r, ours) for r in repeats) if rate is not None]


def _least_costs(repeats: list[Repeat], ours: tuple[str, ...]) -> list[float]:
    return [min(_cpu_per_step(r[s]) for s in ours if s in r) for r in repeats if any(s in r for s in ours)]


def evaluate(result: dict[str, Any]) -> list[Verdict]:
    """Every target of perf.gym, judged on `result`'s blocks."""
    blocks = result.get("blocks", [])
    cores = result.get("settings", {}).get("cores") or result.get("host", {}).get("logical_cpus") or 1
    return [judge(target, blocks, cores) for target in TARGETS] + [judge_scaling(model, blocks)
                                                                    for model in SCALING_MODELS]


def render(verdicts: list[Verdict]) -> str:
    marks = {True: "met", False: "missed", None: "–"}
    cells = [[verdict.target, verdict.measured, paired.NOISY if verdict.noisy else marks[verdict.met]]
             for verdict in verdicts]
    return table(["target", "measured in this run", "verdict"], cells, [False, False, False])
