"""Tasks: rewards and ends of episodes for scenes (see `Task`)."""

from coupler.gym.tasks.arm_pick import ArmPick
from coupler.gym.tasks.arm_reach import ArmReach
from coupler.gym.tasks.task import NoTask, Task

__all__ = ["ArmPick", "ArmReach", "NoTask", "Task"]
