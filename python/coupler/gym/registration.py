"""The coupler environment ids, registered with Gymnasium when coupler.gym is imported."""

from __future__ import annotations

import gymnasium

ENV_ENTRY_POINT = "coupler.gym.env:CouplerEnv"
# gymnasium.make_vec(id, num_envs=N) builds this: N worlds of batched servers, one round trip per step.
VECTOR_ENTRY_POINT = "coupler.gym.vector_env:CouplerVectorEnv"

# id: (keyword arguments of CouplerEnv, max_episode_steps). The arm's time
# step is 2 ms, so an action held for 10 steps lasts 20 ms.
ENVIRONMENTS: dict[str, tuple[dict[str, object], int | None]] = {
    "coupler/ArmReach-v0": ({"scene": "arm", "task": "ArmReach", "frame_skip": 10}, 250),
    "coupler/ArmPick-v0": ({"scene": "arm", "task": "ArmPick", "frame_skip": 10}, 500),
    "coupler/Scene-v0": ({}, None),
    # Gymnasium's own tasks, equal to its -v5 environments (coupler.gym.tasks.gymnasium_locomotion).
    "coupler/HalfCheetah-v5": ({"task": "HalfCheetah-v5"}, 1000),
    "coupler/Hopper-v5": ({"task": "Hopper-v5"}, 1000),
    "coupler/Walker2d-v5": ({"task": "Walker2d-v5"}, 1000),
    "coupler/Swimmer-v5": ({"task": "Swimmer-v5"}, 1000),
    "coupler/InvertedPendulum-v5": ({"task": "InvertedPendulum-v5"}, 1000),
    "coupler/Ant-v5": ({"task": "Ant-v5"}, 1000),
    "coupler/Humanoid-v5": ({"task": "Humanoid-v5"}, 1000),
}


def register_envs() -> None:
    """Register every id of ENVIRONMENTS not yet registered (so calling it twice is harmless)."""
    for env_id, (kwargs, max_episode_steps) in ENVIRONMENTS.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(id=env_id, entry_point=ENV_ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT,
                           kwargs=kwargs, max_episode_steps=max_episode_steps)
