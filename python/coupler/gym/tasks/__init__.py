"""Tasks: rewards and ends of episodes for scenes (see `Task` and `BatchTask`)."""

from coupler.gym.tasks.arm_pick import ArmPick
from coupler.gym.tasks.arm_reach import ArmReach
from coupler.gym.tasks.batch_task import BatchTask
from coupler.gym.tasks.gymnasium_locomotion import (GymnasiumLocomotion, half_cheetah, hopper,
                                                   inverted_pendulum, swimmer, walker2d)
from coupler.gym.tasks.task import NoTask, Task

__all__ = ["ArmPick", "ArmReach", "BatchTask", "GymnasiumLocomotion", "NoTask", "Task", "half_cheetah", "hopper",
           "inverted_pendulum", "swimmer", "walker2d"]
