"""Trains the same PPO (Stable-Baselines3) on coupler/HalfCheetah-v5 and on Gymnasium's HalfCheetah-v5, seed by seed.

    examples/setup                                   # once: .venv-examples with SB3 and torch
    .venv-examples/bin/python -m examples.train_half_cheetah --timesteps 300000 --seeds 0,1

coupler/HalfCheetah-v5 is served by a coupler server and equals Gymnasium's
HalfCheetah-v5 (observations, rewards, ends and reset noise) for the same
seed and actions. Each run here is one side (`coupler`: 16 worlds of one
batched server; `gymnasium`: Gymnasium's SyncVectorEnv of 16 HalfCheetah-v5)
and one seed, and both sides reach PPO through the same code: the vector env
as SB3's VecEnv (examples.sb3_vec_env), VecMonitor, VecNormalize; torch on
the CPU with deterministic algorithms. The script writes every run's curve
of mean episode return against environment steps, its wall time and the
share of it spent stepping the environments, and the largest difference
between the two sides' curves of each seed, as PNG, CSV and JSON.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import multiprocessing
import platform
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import VecNormalize

import coupler.gym  # noqa: F401  (registers the coupler ids)
from examples.ppo_curve import CurvePoint, CurveRecorder, monitored

SIDES = {"coupler": "coupler/HalfCheetah-v5", "gymnasium": "HalfCheetah-v5"}
WRAPPING = ("both sides: the Gymnasium vector env (coupler's CouplerVectorEnv, or Gymnasium's SyncVectorEnv) "
            "in examples.sb3_vec_env.Sb3VecEnv, VecMonitor and VecNormalize")
PACKAGES = ("torch", "stable-baselines3", "gymnasium", "mujoco", "numpy")
log = logging.getLogger("train_half_cheetah")


@dataclass
class Run:
    side: str
    env_id: str
    seed: int
    timesteps: int
    training_seconds: float
    env_seconds: float  # stepping and resetting the environments, within training_seconds
    curve: list[CurvePoint] = field(default_factory=list)


@dataclass
class Comparison:
    seed: int
    identical: bool  # every point of the two sides' curves equal, bit for bit
    max_abs_difference: float  # the largest difference of the two sides' mean episode returns at the same step


@dataclass
class Results:
    command: str
    envs: int
    timesteps: int
    episode_steps: int
    seeds: list[int]
    jobs: int
    ppo: dict[str, Any]
    wrapping: str
    versions: dict[str, str]
    machine: str
    comparisons: list[Comparison]
    seed_to_seed: float | None  # the largest difference between two seeds' curves on the same side
    runs: list[Run]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m examples.train_half_cheetah", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=300_000,
                        help="environment steps each run trains for (all environments together)")
    parser.add_argument("--envs", type=int, default=16, help="environments stepped at once, on each side")
    parser.add_argument("--seeds", default="0,1",
                        help="comma-separated seeds; each is run on both sides (PPO's seed; environment i is "
                             "seeded with seed + i)")
    parser.add_argument("--episode-steps", type=int, default=1000,
                        help="time limit of an episode in environment steps (Gymnasium's HalfCheetah-v5: 1000)")
    parser.add_argument("--jobs", type=int, default=2,
                        help="runs at once, each in a process of its own; runs are started seed by seed, the "
                             "coupler side first, so with 2 the two sides of a seed run side by side")
    parser.add_argument("--torch-threads", type=int, default=1, help="threads torch computes each run's PPO on")
    parser.add_argument("--out", type=Path, default=Path("examples/results"),
                        help="folder for half_cheetah_ppo.png, .csv and .json")
    parser.add_argument("--figure-copy", type=Path, default=None,
                        help="also draw the figure to this file (such as docs/half_cheetah_ppo.png); none by default")
    parser.add_argument("--replot", action="store_true",
                        help="train nothing: draw the figure again from the half_cheetah_ppo.json in --out")
    args = parser.parse_args()
    for name in ("timesteps", "envs", "episode_steps", "jobs", "torch_threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    try:
        args.seeds = [int(seed) for seed in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds must be whole numbers separated by commas, got {args.seeds!r}")
    if len(set(args.seeds)) != len(args.seeds):
        parser.error(f"--seeds names a seed twice: {args.seeds}")
    return args


def ppo_settings(envs: int) -> dict[str, Any]:
    """The PPO paper's MuJoCo settings (Stable-Baselines3's defaults, and CleanRL's): rollouts of 2048 steps in all,
    minibatches of 64, 10 epochs, two hidden layers of 64 (tanh); observations and rewards normalised."""
    return {"n_steps": max(8, 2048 // envs), "batch_size": 64, "n_epochs": 10, "learning_rate": 3e-4,
            "gamma": 0.99, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.0, "vf_coef": 0.5,
            "max_grad_norm": 0.5,
            "policy_kwargs": {"activation_fn": "Tanh", "net_arch": {"pi": [64, 64], "vf": [64, 64]}}}


def vector_env(side: str, envs: int, episode_steps: int) -> gymnasium.vector.VectorEnv:
    if side == "coupler":
        # threads=1: one core steps the worlds, as one core steps Gymnasium's sync vector env.
        return gymnasium.make_vec(SIDES[side], num_envs=envs, threads=1, max_episode_steps=episode_steps)
    return gymnasium.make_vec(SIDES[side], num_envs=envs, vectorization_mode="sync", max_episode_steps=episode_steps)


def train(side: str, seed: int, timesteps: int, envs: int, episode_steps: int, torch_threads: int) -> Run:
    """One run, in a process of its own (so runs can share the machine and none inherits another's state)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    torch.set_num_threads(torch_threads)
    torch.use_deterministic_algorithms(True)
    settings = ppo_settings(envs)
    policy_kwargs = dict(settings["policy_kwargs"], activation_fn=getattr(torch.nn, settings["policy_kwargs"]
                                                                          ["activation_fn"]))
    raw, timer = monitored(vector_env(side, envs, episode_steps))
    try:
        env = VecNormalize(raw, gamma=settings["gamma"])
        model = PPO("MlpPolicy", env, seed=seed, device="cpu", verbose=0, **dict(settings, policy_kwargs=policy_kwargs))
        recorder = CurveRecorder(timesteps, f"{side} seed {seed}")
        started = time.monotonic()
        model.learn(total_timesteps=timesteps, callback=recorder)
        seconds = time.monotonic() - started
    finally:
        raw.close()
    log.info("%s seed %d: trained %d steps in %.0f s, %.0f %% of it stepping the environments", side, seed,
             model.num_timesteps, seconds, 100 * timer.seconds / seconds)
    return Run(side, SIDES[side], seed, int(model.num_timesteps), round(seconds, 1), round(timer.seconds, 1),
               recorder.curve)


def difference(a: list[CurvePoint], b: list[CurvePoint]) -> float:
    """The largest difference of two curves' mean episode returns over the steps where both have a point."""
    returns = {p.timesteps: p.mean_episode_reward for p in b}
    return max((abs(p.mean_episode_reward - returns[p.timesteps]) for p in a if p.timesteps in returns), default=0.0)


def compare(runs: list[Run], seeds: list[int]) -> tuple[list[Comparison], float | None]:
    by = {(run.side, run.seed): run.curve for run in runs}
    comparisons = []
    for seed in seeds:
        a, b = by[("coupler", seed)], by[("gymnasium", seed)]
        same = [(p.timesteps, p.mean_episode_reward, p.episodes) for p in a] == \
            [(p.timesteps, p.mean_episode_reward, p.episodes) for p in b]
        comparisons.append(Comparison(seed, same, difference(a, b)))
    seed_to_seed = max((difference(by[(side, s)], by[(side, t)]) for side in SIDES
                        for s in seeds for t in seeds if s < t), default=None)
    return comparisons, seed_to_seed


def load(path: Path) -> Results:
    """The Results a run of this script wrote as JSON."""
    written = json.loads(path.read_text())
    written["comparisons"] = [Comparison(**comparison) for comparison in written["comparisons"]]
    written["runs"] = [Run(**dict(run, curve=[CurvePoint(**point) for point in run["curve"]]))
                       for run in written["runs"]]
    return Results(**written)


def write(results: Results, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "half_cheetah_ppo.json").write_text(json.dumps(asdict(results), indent=2) + "\n")
    with open(out / "half_cheetah_ppo.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["side", "seed", "timesteps", "mean_episode_reward", "episodes", "seconds"])
        for run in results.runs:
            for point in run.curve:
                writer.writerow([run.side, run.seed, point.timesteps, f"{point.mean_episode_reward:.3f}",
                                 point.episodes, point.seconds])


def draw(results: Results, out: Path, copy: Path | None) -> None:
    for path in (out / "half_cheetah_ppo.png", copy):
        if path is not None:
            plot(results, path)
            log.info("drew %s", path)


def plot(results: Results, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.2, 4.4), dpi=100)
    # coupler's solid and wide, Gymnasium's dashed and narrow on top: where the curves are the same both show.
    styles = {"coupler": {"color": "tab:blue", "linestyle": "-", "mean": 3.5, "thin": 1.6},
              "gymnasium": {"color": "tab:orange", "linestyle": "--", "mean": 1.8, "thin": 0.9}}
    names = {"coupler": "served by coupler", "gymnasium": "Gymnasium's own"}
    for side, style in styles.items():
        runs = [run for run in results.runs if run.side == side]
        minutes = np.mean([run.training_seconds for run in runs]) / 60
        for run in runs:
            axes.plot([p.timesteps for p in run.curve], [p.mean_episode_reward for p in run.curve],
                      color=style["color"], linestyle=style["linestyle"], linewidth=style["thin"], alpha=0.45)
        steps = [p.timesteps for p in runs[0].curve]
        if all([p.timesteps for p in run.curve] == steps for run in runs):
            mean = np.mean([[p.mean_episode_reward for p in run.curve] for run in runs], axis=0)
            seeds = f"mean of {len(runs)} seeds (thin: each)" if len(runs) > 1 else f"seed {runs[0].seed}"
            axes.plot(steps, mean, color=style["color"], linestyle=style["linestyle"], linewidth=style["mean"],
                      label=f"{runs[0].env_id} ({names[side]}): {seeds}; training {minutes:.1f} min a run")
    axes.xaxis.set_major_formatter(lambda x, _: f"{x / 1000:.0f}k")
    axes.set_xlabel("environment steps (all environments together)")
    axes.set_ylabel(f"mean episode return (episodes of {results.episode_steps} steps)", fontsize="small")
    if all(comparison.identical for comparison in results.comparisons):
        finding = "the two sides' curves are identical, bit for bit, for every seed"
    else:
        finding = (f"largest difference between the sides: {max(c.max_abs_difference for c in results.comparisons):.3g}"
                   + ("" if results.seed_to_seed is None else f"; between seeds: {results.seed_to_seed:.3g}"))
    axes.set_title(f"PPO (Stable-Baselines3) on HalfCheetah-v5, {results.envs} environments, "
                   f"seed{'s' if len(results.seeds) > 1 else ''} {', '.join(map(str, results.seeds))}\n{finding}",
                   fontsize="medium")
    axes.grid(alpha=0.3)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize="small", frameon=False)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def versions() -> dict[str, str]:
    return {name: version(name) for name in PACKAGES} | {"python": platform.python_version()}


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    args = arguments()
    if args.replot:
        draw(load(args.out / "half_cheetah_ppo.json"), args.out, args.figure_copy)
        return
    command = shlex.join([Path(sys.executable).name, "-m", "examples.train_half_cheetah", *sys.argv[1:]])
    jobs = [(side, seed) for seed in args.seeds for side in SIDES]
    with ProcessPoolExecutor(max_workers=min(args.jobs, len(jobs)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(train, side, seed, args.timesteps, args.envs, args.episode_steps, args.torch_threads)
                   for side, seed in jobs]
        runs = [future.result() for future in futures]
    comparisons, seed_to_seed = compare(runs, args.seeds)
    results = Results(command, args.envs, args.timesteps, args.episode_steps, args.seeds, args.jobs,
                      ppo_settings(args.envs), WRAPPING, versions(),
                      f"{platform.machine()}, {multiprocessing.cpu_count()} CPUs, {args.torch_threads} torch thread(s)"
                      " a run", comparisons, seed_to_seed, runs)
    write(results, args.out)
    draw(results, args.out, args.figure_copy)
    for comparison in comparisons:
        log.info("seed %d: the two sides' curves are %s (largest difference %.6g)", comparison.seed,
                 "identical" if comparison.identical else "different", comparison.max_abs_difference)


if __name__ == "__main__":
    main()
