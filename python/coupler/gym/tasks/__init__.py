"""Tasks: rewards and ends of episodes for scenes (see `Task` and `BatchTask`)."""

from coupler.gym.tasks.arm_pick import ArmPick
from coupler.gym.tasks.arm_reach import ArmReach
from coupler.gym.tasks.batch_task import BatchTask
from coupler.gym.tasks.gymnasium_free_bodies import GymnasiumAnt, GymnasiumHumanoid, ant, humanoid
from coupler.gym.tasks.gymnasium_locomotion import (GymnasiumLocomotion, half_cheetah, hopper,
                                                   inverted_pendulum, swimmer, walker2d)
from coupler.gym.tasks.task import NoTask, Task

__all__ = ["ArmPick", "ArmReach", "BatchTask", "GymnasiumAnt", "GymnasiumHumanoid", "GymnasiumLocomotion", "NoTask",
           "Task", "ant", "half_cheetah", "hopper", "humanoid", "inverted_pendulum", "swimmer", "walker2d"]
