"""Gymnasium environments over coupler servers (needs the `gym` extra).

    import gymnasium
    env = gymnasium.make("coupler/ArmReach-v0")
    env = gymnasium.make("coupler/Scene-v0", scene="path/to/model.xml", frame_skip=5)
    envs = gymnasium.make_vec("coupler/ArmReach-v0", num_envs=64)  # one batched server, one round trip per step
    env = gymnasium.make("coupler/HalfCheetah-v5")  # Gymnasium's own task, equal to its HalfCheetah-v5
    env = gymnasium.make("coupler/ArmReach-v0", render_mode="rgb_array")  # env.render(): a picture of the arm

Importing this package registers the ids too, for a Gymnasium that did not
load its plugins.
"""

from coupler.wire.missing_extra import needs_extra

with needs_extra("coupler.gym", "gym"):
    import gymnasium  # noqa: F401  (before the modules that use it, so its absence is named)

from coupler.gym.rendering import choose_offscreen_gl  # noqa: E402

choose_offscreen_gl()  # before the modules below import MuJoCo, which reads MUJOCO_GL once

from coupler.gym.env import CouplerEnv  # noqa: E402
from coupler.gym.registration import register_envs  # noqa: E402
from coupler.gym.tasks import ArmPick, ArmReach, BatchTask, NoTask, Task  # noqa: E402
from coupler.gym.vector_env import CouplerVectorEnv  # noqa: E402

register_envs()

__all__ = ["ArmPick", "ArmReach", "BatchTask", "CouplerEnv", "CouplerVectorEnv", "NoTask", "Task", "register_envs"]
