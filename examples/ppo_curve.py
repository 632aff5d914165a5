"""The learning curve of a Stable-Baselines3 run: mean episode return per rollout against environment steps.

Shared by the training examples (train_arm_reach, train_half_cheetah): the
point of a curve, the callback that records it while PPO learns, and how a
coupler or Gymnasium vector environment is handed to SB3.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import gymnasium
import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper, VecMonitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs, VecEnvStepReturn

from examples.sb3_vec_env import Sb3VecEnv

log = logging.getLogger("ppo_curve")


@dataclass
class CurvePoint:
    timesteps: int
    mean_episode_reward: float
    episodes: int
    seconds: float


class CurveRecorder(BaseCallback):
    """Per rollout: the mean reward of the episodes that ended in it; logs progress, prefixed by `label`."""

    def __init__(self, total_timesteps: int, label: str = "") -> None:
        super().__init__()
        self.total = total_timesteps
        self.label = f"{label}: " if label else ""
        self.curve: list[CurvePoint] = []
        self._returns: list[float] = []
        self._started = time.monotonic()

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "episode" in info:
                self._returns.append(float(info["episode"]["r"]))
        return True

    def _on_rollout_end(self) -> None:
        if not self._returns:
            return
        elapsed = time.monotonic() - self._started
        point = CurvePoint(self.num_timesteps, float(np.mean(self._returns)), len(self._returns), round(elapsed, 1))
        self.curve.append(point)
        self._returns = []
        left = elapsed / self.num_timesteps * max(self.total - self.num_timesteps, 0)
        log.info("%s%7d/%d steps (%3.0f%%): mean episode reward %7.2f over %d episodes; %.0f s so far, "
                 "about %.0f s left", self.label, self.num_timesteps, self.total, 100 * self.num_timesteps / self.total,
                 point.mean_episode_reward, point.episodes, elapsed, left)


class StepTimer(VecEnvWrapper):
    """Adds up the wall time spent stepping and resetting the environments, to tell it from PPO's own."""

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self.seconds = 0.0

    def reset(self) -> VecEnvObs:
        started = time.perf_counter()
        observations = self.venv.reset()
        self.seconds += time.perf_counter() - started
        return observations

    def step_wait(self) -> VecEnvStepReturn:
        started = time.perf_counter()
        result = self.venv.step_wait()
        self.seconds += time.perf_counter() - started
        return result


def monitored(envs: gymnasium.vector.VectorEnv) -> tuple[VecEnv, StepTimer]:
    """A Gymnasium vector env (coupler's or Gymnasium's own) as SB3's VecEnv with its episodes' returns in the
    infos (VecMonitor), and the timer of its steps inside that."""
    timer = StepTimer(Sb3VecEnv(envs))
    return VecMonitor(timer), timer
