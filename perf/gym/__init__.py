"""Environment steps per second of vector environments: coupler's batched worlds against EnvPool, Gymnasium's
own vector environments and stepping the same model in-process (the limit).

For each model (the shipped arm scene; Gymnasium's ant.xml, half_cheetah.xml and humanoid.xml) and number
of environments N, every subject is built once, then timed in interleaved
blocks (the order rotated each repeat) on the same random actions, frame
skip 5. Figures are medians over the repeats; ratios are taken within a
repeat (blocks measured back to back) and their median reported, with the
lowest and highest repeat's, and the targets are judged on them (perf.gym.targets).
EnvPool runs in a child process of its own venv's python (.venv-envpool, made by
scripts/setup); without that venv it is left out and the result says so.

    python -m perf.gym          # Ant-v5, Humanoid-v5; N = 16, 64, 256: coupler's tasks, EnvPool, Gymnasium, limit
    python -m perf.gym --ray    # coupler.ray.ServerPool of 1, 2, 4 servers on a local two-node cluster: gym_ray
    python -m perf.gym --quick  # N = 1, 8; 2 short repeats, no Ray, for CI (halfcheetah: N = 8, task
                                # against sync only; EnvPool: ant, N = 8, sync mode only)
    python -m perf.gym --models ant --envs 64 --subjects coupler,coupler-2threads,task,inprocess
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import os
import shlex
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perf.common import host, results
from perf.common.arguments import add_output_flags, list_of, positive
from perf.common.errors import BenchmarkError
from coupler.wire.errors import Error
from perf.common.spread import median_or_none
from perf.gym import render as gym_render
from perf.gym.envpool_stepper import DEFAULT_ENVPOOL_PYTHON, ENVPOOL_SUBJECTS, EnvPoolStepper, missing_reason
from perf.gym.forms import FULL, QUICK, RAY, Form
from perf.gym.measure import (MAX_ASYNC_ENVS, MODELS, RAY_SUBJECTS, SUBJECTS, Block, PoolStepper, Stepper,
                              applies, make_stepper, time_block)

log = logging.getLogger("perf.gym")

# What --quick measures of EnvPool: its sync mode, on one model at one N.
QUICK_ENVPOOL_MODEL, QUICK_ENVPOOL_ENVS, QUICK_ENVPOOL_SUBJECTS = "ant", 8, ("envpool",)
WARMUP_STEPS = 5
# What --quick measures of halfcheetah: coupler's HalfCheetah-v5 task against Gymnasium's, at one N.
QUICK_TASK_MODEL, QUICK_TASK_ENVS, QUICK_TASK_SUBJECTS = "halfcheetah", 8, ("task", "sync")
# The local Ray cluster of the ray subjects.
RAY_NODES, RAY_CPUS_PER_NODE = 2, 1


@dataclass(frozen=True)
class Settings:
    models: tuple[str, ...] = FULL.models
    envs: tuple[int, ...] = FULL.envs
    subjects: tuple[str, ...] = FULL.subjects
    env_steps: int = FULL.env_steps  # per timed block, over all environments
    repeats: int = FULL.repeats
    quick: bool = False
    envpool_python: str = str(DEFAULT_ENVPOOL_PYTHON)
    form: str = FULL.name  # the form whose defaults the flags left unset took (perf.gym.forms)


def _quick_leaves_out(subject: str, model: str, envs: int) -> bool:
    if model == QUICK_TASK_MODEL and subject not in QUICK_TASK_SUBJECTS:
        return True
    return subject in ENVPOOL_SUBJECTS and (model, envs, subject) not in (
        (QUICK_ENVPOOL_MODEL, QUICK_ENVPOOL_ENVS, s) for s in QUICK_ENVPOOL_SUBJECTS)


def _actions(rng: np.random.Generator, steps: int, envs: int, size: int) -> np.ndarray:
    return rng.uniform(-1.0, 1.0, size=(steps, envs, size))


def _action_size(stepper: Stepper) -> int:
    if isinstance(stepper, EnvPoolStepper):
        return stepper.action_size
    envs = getattr(stepper, "envs", None)
    return int(envs.single_action_space.shape[0]) if envs is not None else int(stepper.model.nu)  # type: ignore[attr-defined]


def _shown_path(path: str) -> str:
    """`path` relative to this checkout where it lies inside it, else its last three parts."""
    resolved = Path(os.path.abspath(path))  # not resolve(): a venv's python is a link out of the venv
    root = Path(__file__).resolve().parents[2]
    return str(resolved.relative_to(root)) if resolved.is_relative_to(root) else str(Path(*resolved.parts[-3:]))


def measure_point(settings: Settings, model: str, envs: int, peers: dict[str, Any] | None = None) -> list[Block]:
    """Every subject of one (model, N), built, warmed up, then timed in interleaved repeats. `peers` gets the
    versions EnvPool's child reported, when it was built, and how many Ray nodes each pool's servers ran on."""
    subjects = [s for s in settings.subjects if applies(s, model, envs)
                and not (settings.quick and _quick_leaves_out(s, model, envs))]
    steps = max(1, math.ceil(settings.env_steps / envs))
    steppers: dict[str, Stepper] = {}
    blocks = []
    try:
        for subject in subjects:
            started = time.monotonic()
            steppers[subject] = make_stepper(subject, model, envs, Path(settings.envpool_python))
            stepper = steppers[subject]
            if isinstance(stepper, EnvPoolStepper) and peers is not None:
                peers["envpool"] = {k: stepper.ready[k] for k in ("envpool", "numpy", "gymnasium", "frame_skip")}
            if isinstance(stepper, PoolStepper) and peers is not None:
                peers.setdefault("ray_nodes", {})[f"{subject}, {model}, N={envs}"] = len(set(stepper.pool.nodes))
            log.info("  %s, N=%d: %s ready in %.1f s", model, envs, subject, time.monotonic() - started)
        actions = {s: _actions(np.random.default_rng(envs), steps, envs, _action_size(steppers[s])) for s in subjects}
        for subject in subjects:
            for batch in actions[subject][:WARMUP_STEPS]:
                steppers[subject].step(batch)
        for repeat in range(settings.repeats):
            order = subjects[repeat % len(subjects):] + subjects[: repeat % len(subjects)]
            for subject in order:
                block = time_block(steppers[subject], subject, model, envs, repeat, actions[subject])
                log.info("  [%s N=%d repeat %d/%d] %-17s %10.0f env steps/s, %7.1f µs CPU per env step",
                         model, envs, repeat + 1, settings.repeats, subject, block.env_steps_per_s,
                         block.cpu_us_per_env_step)
                blocks.append(block)
    finally:
        for stepper in steppers.values():
            stepper.close()
    return blocks


def summarise(blocks: list[Block], cores: int | None = None) -> list[dict[str, Any]]:
    """Per (model, N, subject): median and spread of steps/s, CPU per step, cores used; ratios per repeat.
    `cores`: the CPUs the limit over all cores counts (default: those this process may use)."""
    cores = cores or len(os.sched_getaffinity(0))
    rows = []
    for model, envs, subject in dict.fromkeys((b.model, b.envs, b.subject) for b in blocks):
        mine = [b for b in blocks if (b.model, b.envs, b.subject) == (model, envs, subject)]
        rates = [b.env_steps_per_s for b in mine]
        row: dict[str, Any] = {
            "model": model, "envs": envs, "subject": subject, "repeats": len(mine),
            "env_steps_per_s": statistics.median(rates), "min": min(rates), "max": max(rates),
            "cpu_us_per_env_step": statistics.median(b.cpu_us_per_env_step for b in mine),
            "cores_used": statistics.median(b.cpu_s / b.wall_s for b in mine),
        }
        by_repeat: dict[tuple[int, str], Block] = {(b.repeat, b.subject): b for b in blocks
                                                   if (b.model, b.envs) == (model, envs)}
        gym_ratios, envpool_ratios, limit_ratios, all_cores_ratios = [], [], [], []
        for b in mine:
            for ratios, rivals in ((gym_ratios, ("sync", "async")), (envpool_ratios, ENVPOOL_SUBJECTS)):
                rates = [by_repeat[(b.repeat, s)].env_steps_per_s for s in rivals if (b.repeat, s) in by_repeat]
                if rates:
                    ratios.append(b.env_steps_per_s / max(rates))
            limit = by_repeat.get((b.repeat, "inprocess"))
            if limit is not None:
                # Steps per CPU second, against the limit's (one core): the share of the limit per core used.
                limit_ratios.append(limit.cpu_us_per_env_step / b.cpu_us_per_env_step)
                # Steps per second, against one core's rate on every core at once: the physical limit.
                all_cores_ratios.append(b.env_steps_per_s / (limit.env_steps_per_s * cores))
        row["vs_best_gymnasium"] = median_or_none(gym_ratios)
        row["vs_best_envpool"] = median_or_none(envpool_ratios)
        row["vs_inprocess_per_core"] = median_or_none(limit_ratios)
        row["vs_inprocess_all_cores"] = median_or_none(all_cores_ratios)
        rows.append(row)
    return rows


def _joined(values: tuple[Any, ...]) -> str:
    return ",".join(map(str, values))


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.gym",
        description="Measure environment steps per second of coupler's vector environments (batched worlds) "
        "against EnvPool (sync and async modes, in its own venv), Gymnasium's sync and async vector environments "
        "of Ant-v5, HalfCheetah-v5 and Humanoid-v5 (coupler's tasks equal to them among coupler's subjects) and "
        "against stepping the same model in-process, for several numbers of environments, and judge the "
        f"targets on them. The full run ({FULL.minutes} on a 2-core machine; the result says what it took) "
        f"measures {', '.join(FULL.models)} at N = {_joined(FULL.envs)} with {_joined(FULL.subjects)}; --ray a "
        "coupler.ray.ServerPool of 1, 2 and 4 servers on a local two-node Ray cluster; --quick a short subset "
        "for CI. Writes gym.json and gym.md (--ray: gym_ray.json and gym_ray.md); prints the table and the "
        "targets on stdout and a line per timed block on stderr. Exits 1 when a subject fails, never because of "
        "a figure.",
    )
    parser.add_argument("--models", type=list_of(str, MODELS), default=None, metavar="LIST",
                        help="comma-separated, of arm (the shipped arm scene), ant, halfcheetah and humanoid "
                             "(ant.xml, half_cheetah.xml and humanoid.xml of the installed Gymnasium; with --quick, "
                             f"halfcheetah is measured at N = {QUICK_TASK_ENVS} by the task and sync subjects only) "
                             f"(default: {_joined(FULL.models)}; --ray {_joined(RAY.models)}; --quick "
                             f"{_joined(QUICK.models)})")
    parser.add_argument("--envs", type=list_of(positive(int)), default=None, metavar="N,...",
                        help=f"numbers of environments, for every model (default {_joined(FULL.envs)}; --ray "
                             f"{_joined(RAY.envs)}; --quick {_joined(QUICK.envs)})")
    parser.add_argument("--subjects", type=list_of(str, SUBJECTS + RAY_SUBJECTS), default=None, metavar="LIST",
                        help="comma-separated, of coupler (make_vec coupler/Scene-v0, one batched server of one "
                             "thread), coupler-2threads (its worlds stepped on two threads), coupler-2servers (on "
                             "two servers), task (make_vec of coupler's task equal to the model's Gymnasium "
                             "environment, such as coupler/Ant-v5, one server of a thread per CPU), task-2servers "
                             "(the same on two servers sharing the CPUs' threads), sync and "
                             f"async (make_vec Ant-v5, HalfCheetah-v5 or Humanoid-v5; async up to N = "
                             f"{MAX_ASYNC_ENVS}: a process per environment), inprocess (mj_step in this process, "
                             "the limit), envpool and envpool-async (EnvPool's Ant-v5 or Humanoid-v5, batch N or "
                             "N / 2, one thread per CPU, run by --envpool-python; with --quick only envpool, at "
                             f"{QUICK_ENVPOOL_MODEL} N = {QUICK_ENVPOOL_ENVS}), ray-1server, ray-2servers and "
                             "ray-4servers (a coupler.ray.ServerPool of one, two or four servers of one thread "
                             f"on a local Ray cluster of {RAY_NODES} nodes of {RAY_CPUS_PER_NODE} CPU, started "
                             "when one of them is asked for: most of a minute) (default: "
                             f"{_joined(FULL.subjects)}; --ray {_joined(RAY.subjects)}; --quick "
                             f"{_joined(QUICK.subjects)})")
    parser.add_argument("--env-steps", type=positive(int), default=None, metavar="STEPS",
                        help="environment steps in each timed block, over all environments (default "
                             f"{FULL.env_steps}; --ray {RAY.env_steps}; --quick {QUICK.env_steps})")
    parser.add_argument("--repeats", type=positive(int), default=None,
                        help=f"timed blocks per subject (default {FULL.repeats}; --ray {RAY.repeats}; --quick "
                             f"{QUICK.repeats})")
    forms = parser.add_mutually_exclusive_group()
    forms.add_argument("--quick", action="store_true", help="CI run: the quick defaults above (default: off)")
    forms.add_argument("--ray", action="store_true",
                       help="the Ray pool's run: the --ray defaults above, written as gym_ray.json and gym_ray.md "
                            f"({RAY.minutes} on a 2-core machine) (default: off)")
    parser.add_argument("--envpool-python", type=Path, default=DEFAULT_ENVPOOL_PYTHON, metavar="PATH",
                        help="the python of EnvPool's own venv, which runs perf/gym/envpool_peer.py; when it does "
                             "not exist the envpool subjects are left out and the result says why (default: "
                             ".venv-envpool/bin/python of this checkout, made by scripts/setup)")
    add_output_flags(parser, FULL.result, plot=False, instead=f"{RAY.result}.* with --ray")
    args = parser.parse_args(argv)
    args.form = form_of(args)
    args.command = command_of(argv if argv is not None else sys.argv[1:])
    for name in ("models", "envs", "subjects", "env_steps", "repeats"):
        if getattr(args, name) is None:
            setattr(args, name, getattr(args.form, name))
    return args


def form_of(args: argparse.Namespace) -> Form:
    """The form whose defaults the flags left unset take (perf.gym.forms)."""
    return QUICK if args.quick else RAY if args.ray else FULL


def command_of(argv: list[str]) -> str:
    """The command that measures the same again, as a result shows it: the flags given, but where the result
    was written and a python path of this machine's."""
    kept: list[str] = []
    skip = False
    for flag in argv:
        if skip:
            skip = False
            continue
        name = flag.split("=", 1)[0]
        if name in ("--out", "--envpool-python"):
            skip = "=" not in flag
            continue
        kept.append(flag)
    return shlex.join(["python", "-m", "perf.gym", *kept])


@contextlib.contextmanager
def _ray_cluster() -> Iterator[None]:
    """A local Ray cluster of RAY_NODES nodes of RAY_CPUS_PER_NODE CPUs, connected to, for the ray subjects."""
    import ray

    from coupler.ray import LocalCluster

    log.info("perf.gym: starting a local Ray cluster of %d nodes", RAY_NODES)
    with LocalCluster(nodes=RAY_NODES, cpus_per_node=RAY_CPUS_PER_NODE) as cluster:
        ray.init(address=cluster.address, logging_level="ERROR")
        try:
            yield
        finally:
            ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    envpool_missing = missing_reason(args.envpool_python) if set(args.subjects) & set(ENVPOOL_SUBJECTS) else None
    if envpool_missing is not None:
        log.warning("perf.gym: EnvPool not measured: %s", envpool_missing)
        args.subjects = tuple(s for s in args.subjects if s not in ENVPOOL_SUBJECTS)
    settings = Settings(models=args.models, envs=args.envs, subjects=args.subjects, env_steps=args.env_steps,
                        repeats=args.repeats, quick=args.quick, envpool_python=str(args.envpool_python),
                        form=args.form.name)
    log.info("perf.gym: %s run (its defaults take %s on a 2-core machine): %s", args.form.name,
             args.form.minutes, args.command)
    started = time.monotonic()
    blocks: list[Block] = []
    peers: dict[str, Any] = {}
    try:
        with contextlib.ExitStack() as stack:
            if set(settings.subjects) & set(RAY_SUBJECTS):
                stack.enter_context(_ray_cluster())
            for model in settings.models:
                for envs in settings.envs:
                    if settings.quick and model == QUICK_TASK_MODEL and envs != QUICK_TASK_ENVS:
                        continue
                    log.info("perf.gym: %s, N=%d (%.0f s in)", model, envs, time.monotonic() - started)
                    blocks += measure_point(settings, model, envs, peers)
    except (BenchmarkError, Error) as error:
        log.error("perf.gym: %s", error)
        return 1
    cores = len(os.sched_getaffinity(0))
    result = {
        "benchmark": "gym",
        "measured_at": results.measured_now(),
        "duration_s": time.monotonic() - started,
        "command": args.command,
        "host": host.describe(),
        # The venv's python as this checkout names it: a result is published, and the machine's paths are not its.
        "settings": {**asdict(settings), "envpool_python": _shown_path(settings.envpool_python), "cores": cores},
        "rows": summarise(blocks, cores),
        # EnvPool's versions as its child reported them, or why it was not measured.
        "envpool": peers.get("envpool", {"missing": envpool_missing} if envpool_missing else None),
        "blocks": [asdict(b) for b in blocks],
    }
    if "ray_nodes" in peers:
        result["ray"] = {"nodes": RAY_NODES, "cpus_per_node": RAY_CPUS_PER_NODE, "servers_on_nodes": peers["ray_nodes"]}
    markdown = gym_render.render(result)
    written = results.write(args.out, args.form.result, result, markdown)
    print(markdown)
    log.info("perf.gym: wrote %s in %.0f s", ", ".join(str(p) for p in written), result["duration_s"])
    return 0
