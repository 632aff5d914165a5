"""Trains a PPO policy (Stable-Baselines3) on coupler/ArmReach-v0 over many worlds of one batched server.

    examples/setup                                   # once: .venv-examples with SB3 and torch
    .venv-examples/bin/python -m examples.train_arm_reach --timesteps 400000

Measures a random policy's mean episode reward first, trains, measures the
trained policy (deterministic actions) the same way, and writes the curve of
mean episode reward against environment steps as PNG, CSV and JSON, the
random policy's mean drawn as a reference line.
"""

from __future__ import annotations

import argparse
import csv
import json
import logging
import platform
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import VecEnv, VecNormalize

import coupler.gym  # noqa: F401  (registers the coupler ids)
from examples.ppo_curve import CurvePoint, CurveRecorder, monitored

ENV_ID = "coupler/ArmReach-v0"
log = logging.getLogger("train_arm_reach")


@dataclass
class Evaluation:
    mean_episode_reward: float
    std_episode_reward: float
    mean_episode_steps: float
    reached: float  # the share of episodes that ended with the tool point at the box, before the time limit


@dataclass
class Results:
    env_id: str
    envs: int
    timesteps: int
    seed: int
    ppo: dict[str, Any]
    random: Evaluation
    trained: Evaluation
    evaluation_episodes: int
    training_seconds: float
    total_seconds: float
    machine: str
    curve: list[CurvePoint] = field(default_factory=list)


class RandomPolicy:
    """Uniform random actions, with the `predict` of an SB3 model so both are measured by the same code."""

    def __init__(self, env: VecEnv, seed: int) -> None:
        self.space = env.action_space
        self.num_envs = env.num_envs
        self.rng = np.random.default_rng(seed)

    def predict(self, observations: np.ndarray, state: Any = None, episode_start: Any = None,
                deterministic: bool = False) -> tuple[np.ndarray, None]:
        low, high = self.space.low, self.space.high
        return self.rng.uniform(low, high, size=(self.num_envs, *low.shape)), None


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m examples.train_arm_reach", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=400_000,
                        help="environment steps to train for (all worlds together)")
    parser.add_argument("--envs", type=int, default=16, help="worlds stepped at once on the batched server")
    parser.add_argument("--threads", type=int, default=1, help="threads the server steps its worlds on")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of PPO, the worlds' starting states and the random policy")
    parser.add_argument("--eval-episodes", type=int, default=64,
                        help="episodes over which the random and the trained policy's mean reward are taken")
    parser.add_argument("--torch-threads", type=int, default=1, help="threads torch computes PPO's updates on")
    parser.add_argument("--out", type=Path, default=Path("examples/results"),
                        help="folder for arm_reach_ppo.png, .csv and .json")
    args = parser.parse_args()
    for name in ("timesteps", "envs", "threads", "eval_episodes", "torch_threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    return args


def ppo_settings(envs: int) -> dict[str, Any]:
    """PPO for a dense-reward reach task: rollouts of 8192 steps in all, a wider network, a smaller first spread."""
    return {"n_steps": max(64, 8192 // envs), "batch_size": 512, "n_epochs": 10, "learning_rate": 3e-4,
            "gamma": 0.98, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.0,
            "policy_kwargs": {"net_arch": [128, 128], "log_std_init": -1.0}}


def evaluate(policy: Any, env: VecEnv, episodes: int) -> Evaluation:
    rewards, lengths = evaluate_policy(policy, env, n_eval_episodes=episodes, deterministic=True, warn=False,
                                       return_episode_rewards=True)
    time_limit = gymnasium.spec(ENV_ID).max_episode_steps
    return Evaluation(float(np.mean(rewards)), float(np.std(rewards)), float(np.mean(lengths)),
                      float(np.mean([length < time_limit for length in lengths])))


def describe(evaluation: Evaluation, episodes: int) -> str:
    return (f"mean episode reward {evaluation.mean_episode_reward:.2f} (std {evaluation.std_episode_reward:.2f}) "
            f"over {episodes} episodes of {evaluation.mean_episode_steps:.0f} steps on average; "
            f"{100 * evaluation.reached:.0f} % reached the box")


def write(results: Results, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "arm_reach_ppo.json").write_text(json.dumps(asdict(results), indent=2) + "\n")
    with open(out / "arm_reach_ppo.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["timesteps", "mean_episode_reward", "episodes", "seconds"])
        for point in results.curve:
            writer.writerow([point.timesteps, f"{point.mean_episode_reward:.3f}", point.episodes, point.seconds])
    plot(results, out / "arm_reach_ppo.png")


def plot(results: Results, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 3.6), dpi=100)
    axes.plot([p.timesteps for p in results.curve], [p.mean_episode_reward for p in results.curve],
              label="PPO while training (episodes ended in each rollout)")
    axes.axhline(results.random.mean_episode_reward, color="grey", linestyle="--",
                 label=f"random policy: {results.random.mean_episode_reward:.1f}")
    axes.axhline(results.trained.mean_episode_reward, color="green", linestyle=":",
                 label=f"trained, deterministic: {results.trained.mean_episode_reward:.1f}")
    axes.xaxis.set_major_formatter(lambda x, _: f"{x / 1000:.0f}k")
    axes.set_xlabel("environment steps")
    axes.set_ylabel("mean episode reward")
    axes.set_title(f"PPO on {results.env_id}, {results.envs} worlds, {results.training_seconds / 60:.0f} min")
    axes.legend(loc="lower right", fontsize="small")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    args = arguments()
    torch.set_num_threads(args.torch_threads)
    started = time.monotonic()
    raw, _ = monitored(gymnasium.make_vec(ENV_ID, num_envs=args.envs, threads=args.threads))
    try:
        raw.seed(args.seed)
        random = evaluate(RandomPolicy(raw, args.seed), raw, args.eval_episodes)
        log.info("random policy: %s", describe(random, args.eval_episodes))
        settings = ppo_settings(args.envs)
        env = VecNormalize(raw, gamma=settings["gamma"])
        model = PPO("MlpPolicy", env, seed=args.seed, device="cpu", verbose=0, **settings)
        recorder = CurveRecorder(args.timesteps)
        training_started = time.monotonic()
        model.learn(total_timesteps=args.timesteps, callback=recorder)
        training_seconds = time.monotonic() - training_started
        env.training, env.norm_reward = False, False
        trained = evaluate(model, env, args.eval_episodes)
        log.info("trained policy: %s", describe(trained, args.eval_episodes))
    finally:
        raw.close()
    results = Results(ENV_ID, args.envs, int(model.num_timesteps), args.seed, settings, random, trained,
                      args.eval_episodes, round(training_seconds, 1),
                      round(time.monotonic() - started, 1),
                      f"{platform.machine()}, {torch.get_num_threads()} torch threads, {platform.python_version()}",
                      recorder.curve)
    write(results, args.out)
    log.info("trained %d steps in %.0f s (%.0f steps/s); wrote %s", results.timesteps, training_seconds,
             results.timesteps / training_seconds, args.out / "arm_reach_ppo.png")


if __name__ == "__main__":
    main()
