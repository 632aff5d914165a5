"""What each form of perf.gym measures when no flag says otherwise: the full run, --quick (CI) and --ray.

The full run is the comparison the targets are stated for: Gymnasium's Ant-v5 and Humanoid-v5 at N = 16, 64
and 256, coupler's tasks equal to them against EnvPool, Gymnasium's vector environments and the in-process
limit. --ray measures coupler.ray.ServerPool on a local two-node cluster and writes a result of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from perf.gym.envpool_stepper import ENVPOOL_SUBJECTS


@dataclass(frozen=True)
class Form:
    name: str  # the flag that selects it, or "full"
    result: str  # the result's file name, without .json / .md
    models: tuple[str, ...]
    envs: tuple[int, ...]
    subjects: tuple[str, ...]
    env_steps: int  # per timed block, over all environments
    repeats: int
    minutes: str  # how long it takes on a 2-core machine, as the log and --help say it


# Five repeats, so that a target's median rests on the middle three (perf.common.paired.middle); blocks of 3,200
# env steps last one to three seconds at these rates, long enough that a vector step's start-up is noise, short
# enough that the whole run (40 subject points, Gymnasium's async a process per environment to start at N = 16
# and 64) took 7.8 minutes on a 2-core machine at a load average of 9 to 12.
FULL = Form(
    name="full", result="gym", models=("ant", "humanoid"), envs=(16, 64, 256),
    subjects=("task", "task-2servers", "sync", "async", "inprocess") + ENVPOOL_SUBJECTS,
    env_steps=3200, repeats=5, minutes="about 8 minutes",
)
# CI's: every subject of the shipped arm scene and the ant at N = 1 and 8, with the restrictions of
# perf.gym's QUICK_* (the half cheetah's task against sync only, EnvPool once); no Ray (most of a minute to start).
QUICK = Form(
    name="quick", result="gym", models=("arm", "ant", "halfcheetah"), envs=(1, 8),
    subjects=("coupler", "coupler-2threads", "coupler-2servers", "task", "sync", "async", "inprocess")
    + ENVPOOL_SUBJECTS,
    env_steps=160, repeats=2, minutes="under half a minute",
)
# A pool of one, two and four servers on two one-CPU nodes, against one local server of the same worlds
# (coupler, no Ray) and the in-process limit.
RAY = Form(
    name="ray", result="gym_ray", models=("ant",), envs=(64, 256),
    subjects=("ray-1server", "ray-2servers", "ray-4servers", "coupler", "inprocess"),
    env_steps=3200, repeats=5, minutes="about 2 minutes",
)
