"""`Sb3VecEnv`: a Gymnasium vector environment (CouplerVectorEnv) as a Stable-Baselines3 VecEnv.

The stepping semantics live in `examples.same_step_autoreset` (tested without
SB3 or torch); this file only fits them to SB3's VecEnv interface.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from examples.same_step_autoreset import SameStepAutoreset


class Sb3VecEnv(VecEnv):
    """SB3's VecEnv over one Gymnasium vector env whose environments SB3 sees as its `num_envs`.

    The environments are worlds of one vector env, not Python objects of their
    own: `get_attr` gives the vector env's attribute for every index, and
    `set_attr` and `env_method` apply to the vector env as a whole, so they
    refuse a subset of the environments.
    """

    def __init__(self, envs: gymnasium.vector.VectorEnv) -> None:
        self._steps = SameStepAutoreset(envs)
        self._actions: np.ndarray | None = None
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)

    @property
    def vector_env(self) -> gymnasium.vector.VectorEnv:
        return self._steps.envs

    def reset(self) -> VecEnvObs:
        if any(self._options):
            raise ValueError("per-environment reset options are not supported: the worlds reset together")
        seeds = None if all(seed is None for seed in self._seeds) else list(self._seeds)
        observations, self.reset_infos = self._steps.reset(seeds)
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait without step_async")
        actions, self._actions = self._actions, None
        return self._steps.step(actions)

    def close(self) -> None:
        self._steps.close()

    def _all(self, indices: VecEnvIndices, what: str) -> None:
        if list(self._get_indices(indices)) != list(range(self.num_envs)):
            raise ValueError(f"{what} applies to every environment at once here; got indices {indices!r}")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self.vector_env, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        self._all(indices, "set_attr")
        setattr(self.vector_env, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        self._all(indices, "env_method")
        result = getattr(self.vector_env, method_name)(*method_args, **method_kwargs)
        return [result for _ in range(self.num_envs)]

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
