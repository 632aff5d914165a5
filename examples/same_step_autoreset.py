"""Gymnasium vector environments stepped with Stable-Baselines3's autoreset semantics, without SB3 or torch.

Gymnasium's NEXT_STEP autoreset (CouplerVectorEnv's) ends an episode on one
step and restarts that environment on the next, ignoring its action there.
Stable-Baselines3's VecEnv restarts it within the same step: the step that
ends an episode returns the next episode's first observation, done True, the
last step's reward, and the episode's last observation in
`infos[i]["terminal_observation"]` (with `infos[i]["TimeLimit.truncated"]`
True when the episode was cut off by its time limit rather than ended by the
task, so that PPO bootstraps its value). `SameStepAutoreset` gives the latter
over the former through Gymnasium's partial reset (`reset_mask`): one extra
round trip on the steps where some episode ended, none on the others, and no
step is ever wasted on an ignored action.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode


class SameStepAutoreset:
    """Drives a Gymnasium vector env (NEXT_STEP autoreset, `reset_mask` partial resets) the way SB3's VecEnv steps.

    `reset(seeds)` takes one seed (or None) per environment; `step(actions)`
    returns observations, rewards, dones and one info dict per environment
    (the vector env's per-environment infos, plus SB3's keys on episode ends).
    """

    def __init__(self, envs: gymnasium.vector.VectorEnv) -> None:
        mode = envs.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
        if mode != AutoresetMode.NEXT_STEP:
            raise ValueError(f"the vector env's autoreset mode is {mode}; SameStepAutoreset needs NEXT_STEP")
        self.envs = envs
        self.num_envs: int = envs.num_envs

    def reset(self, seeds: list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, list[dict[str, Any]]]:
        observations, infos = self.envs.reset(seed=seeds, options=options)
        return np.array(observations, order="C"), self._per_env(infos)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        observations, rewards, terminated, truncated, infos = self.envs.step(actions)
        # C order whatever the vector env's layout (Gymnasium's tasks served by coupler give Fortran order), as
        # SB3's DummyVecEnv's buffer has: torch's matrix products may add in another order over another layout,
        # which changes a policy's actions in the last bit.
        observations = np.array(observations, order="C")
        dones = np.logical_or(terminated, truncated)
        per_env = self._per_env(infos)
        if dones.any():
            for i in np.flatnonzero(dones):
                per_env[i]["terminal_observation"] = observations[i].copy()
                per_env[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            first, _ = self.envs.reset(options={"reset_mask": dones.copy()})
            observations[dones] = first[dones]
        return observations, np.asarray(rewards, dtype=np.float32), dones, per_env

    def _per_env(self, infos: dict[str, Any]) -> list[dict[str, Any]]:
        """Gymnasium's batched infos (key, and "_key" marking who has it) as one dict per environment."""
        per_env: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for key, values in infos.items():
            if key.startswith("_"):
                continue
            present = infos.get(f"_{key}", np.ones(self.num_envs, dtype=bool))
            for i in np.flatnonzero(present):
                per_env[i][key] = values[i]
        return per_env

    def close(self) -> None:
        self.envs.close()
