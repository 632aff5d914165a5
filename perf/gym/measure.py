"""The vector environments perf.gym times, and one timed block of steps of one of them."""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from perf.common.errors import BenchmarkError
from perf.common.process_stats import tree_cpu_seconds
from perf.gym.envpool_stepper import DEFAULT_ENVPOOL_PYTHON, ENVPOOL_IDS, ENVPOOL_SUBJECTS, EnvPoolStepper

log = logging.getLogger("perf.gym")

FRAME_SKIP = 5  # Ant-v5's, HalfCheetah-v5's and Humanoid-v5's, used for every subject
MODELS = ("arm", "ant", "halfcheetah", "humanoid")
# The Gymnasium environment of each Gymnasium model (sync and async), and the coupler task equal to it (task):
# measured once coupler.gym registers that id, and then the row the targets against EnvPool judge.
GYMNASIUM_IDS = {"ant": "Ant-v5", "halfcheetah": "HalfCheetah-v5", "humanoid": "Humanoid-v5"}
TASK_IDS = {"halfcheetah": "coupler/HalfCheetah-v5", "ant": "coupler/Ant-v5", "humanoid": "coupler/Humanoid-v5"}
MODEL_FILES = {"ant": "ant.xml", "halfcheetah": "half_cheetah.xml", "humanoid": "humanoid.xml"}
# Gymnasium's async vector env is a process per environment: beyond this many it measures process switching
# on a small machine (and needs a gigabyte per ten environments), not the environments.
MAX_ASYNC_ENVS = 64
# coupler: make_vec of coupler/Scene-v0 (one batched server, one thread); coupler-2threads: its worlds stepped on
# two threads; coupler-2servers: on two servers of one thread; task: make_vec of the coupler task equal to the
# model's Gymnasium environment (its observations and rewards too), one server of a thread per CPU;
# task-2servers: the same on two servers sharing the CPUs' threads; sync, async: make_vec("Ant-v5") or
# ("HalfCheetah-v5") (Gymnasium's own environment); inprocess: mj_step in this process; envpool: EnvPool's
# sync mode (batch = N), envpool-async: its async mode (batch N / 2), in EnvPool's own venv (envpool_stepper).
SUBJECTS = ("coupler", "coupler-2threads", "coupler-2servers", "task", "task-2servers", "sync", "async",
            "inprocess") + ENVPOOL_SUBJECTS
# The subjects that are coupler's task equal to Gymnasium's environment, and the servers each runs it on.
TASK_SUBJECTS = {"task": 1, "task-2servers": 2}
# A coupler.ray.ServerPool of one, two and four servers on a local cluster of two nodes of one CPU each.
RAY_SUBJECTS = ("ray-1server", "ray-2servers", "ray-4servers")
RAY_SERVERS = {"ray-1server": 1, "ray-2servers": 2, "ray-4servers": 4}
# The CPUs each pool server's actor asks Ray for: every pool of a point is built before any is timed, so all
# of RAY_SUBJECTS' seven servers must fit the cluster's two CPUs at once (they take turns in the timing).
POOL_SERVER_CPUS = 0.25
# The keywords of make_vec("coupler/Scene-v0") of each coupler subject.
COUPLER_SUBJECTS: dict[str, dict[str, int]] = {
    "coupler": {"threads": 1}, "coupler-2threads": {"threads": 2}, "coupler-2servers": {"servers": 2},
}


def model_path(model: str) -> Path:
    """The MJCF file of a model: the shipped arm scene, or the model file inside the installed Gymnasium."""
    if model == "arm":
        from coupler.scenes import SCENES_DIR

        return SCENES_DIR / "arm.xml"
    import gymnasium

    return Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets" / MODEL_FILES[model]


def applies(subject: str, model: str, envs: int) -> bool:
    """Whether a subject is measured for this model and number of environments."""
    if subject == "sync":
        return model in GYMNASIUM_IDS
    if subject == "async":
        return model in GYMNASIUM_IDS and envs <= MAX_ASYNC_ENVS
    if subject in TASK_SUBJECTS:
        return model in TASK_IDS and envs >= TASK_SUBJECTS[subject] and _registered(TASK_IDS[model])
    if subject in ENVPOOL_SUBJECTS:
        return model in ENVPOOL_IDS and (subject == "envpool" or envs >= 2)
    if subject in ("coupler-2threads", "coupler-2servers"):
        return envs >= 2
    if subject in RAY_SERVERS:
        return envs % RAY_SERVERS[subject] == 0
    return True


def _registered(env_id: str) -> bool:
    import gymnasium

    import coupler.gym  # noqa: F401  (registers the coupler ids)

    return env_id in gymnasium.registry


class Stepper(Protocol):
    def step(self, actions: np.ndarray) -> None: ...

    def close(self) -> None: ...


class VectorStepper:
    """A Gymnasium vector environment, reset once, stepped with the given actions."""

    def __init__(self, envs: Any) -> None:
        self.envs = envs
        envs.reset(seed=0)
        self.low, self.high = envs.single_action_space.low, envs.single_action_space.high

    def step(self, actions: np.ndarray) -> None:
        self.envs.step(actions)

    def close(self) -> None:
        self.envs.close()


class PoolStepper(VectorStepper):
    """CouplerVectorEnv over a ServerPool of `servers` servers sharing the worlds (needs ray.init first)."""

    def __init__(self, path: Path, envs: int, servers: int) -> None:
        from coupler.gym import CouplerVectorEnv
        from coupler.ray import ServerPool

        self.pool = ServerPool(servers, envs // servers, scene=str(path), num_cpus=POOL_SERVER_CPUS)
        log.info("  %d pool servers on %d Ray nodes", servers, len(set(self.pool.nodes)))
        try:
            super().__init__(CouplerVectorEnv(envs, scene=str(path), frame_skip=FRAME_SKIP, pool=self.pool))
        except BaseException:
            self.pool.close()
            raise

    def close(self) -> None:
        super().close()
        self.pool.close()


class InProcessStepper:
    """The limit: the model's mjData stepped FRAME_SKIP steps each, one after the other, in this process."""

    def __init__(self, path: Path, envs: int) -> None:
        import mujoco

        self.mujoco = mujoco
        self.model = mujoco.MjModel.from_xml_path(str(path))
        self.datas = [mujoco.MjData(self.model) for _ in range(envs)]
        ranges = self.model.actuator_ctrlrange
        self._centre, self._half = ranges.mean(axis=1), (ranges[:, 1] - ranges[:, 0]) / 2

    def step(self, actions: np.ndarray) -> None:
        ctrl = self._centre + self._half * actions[:, : self.model.nu]
        for data, row in zip(self.datas, ctrl):
            data.ctrl[:] = row
            self.mujoco.mj_step(self.model, data, nstep=FRAME_SKIP)

    def close(self) -> None:
        self.datas = []


def make_stepper(subject: str, model: str, envs: int, envpool_python: Path = DEFAULT_ENVPOOL_PYTHON) -> Stepper:
    import gymnasium

    import coupler.gym  # noqa: F401  (registers the coupler ids)

    path = model_path(model)
    if subject in COUPLER_SUBJECTS:
        return VectorStepper(gymnasium.make_vec("coupler/Scene-v0", num_envs=envs, scene=str(path),
                                                frame_skip=FRAME_SKIP, **COUPLER_SUBJECTS[subject]))
    if subject in ("sync", "async"):
        return VectorStepper(gymnasium.make_vec(GYMNASIUM_IDS[model], num_envs=envs, vectorization_mode=subject))
    if subject in TASK_SUBJECTS:
        servers = TASK_SUBJECTS[subject]
        # One server: its default, a thread per CPU. More: the CPUs' threads shared among them, as many in all.
        threads = None if servers == 1 else max(1, len(os.sched_getaffinity(0)) // servers)
        return VectorStepper(gymnasium.make_vec(TASK_IDS[model], num_envs=envs, servers=servers, threads=threads))
    if subject == "inprocess":
        return InProcessStepper(path, envs)
    if subject in RAY_SERVERS:
        return PoolStepper(path, envs, RAY_SERVERS[subject])
    if subject in ENVPOOL_SUBJECTS:
        return EnvPoolStepper(ENVPOOL_IDS[model], envs, envs if subject == "envpool" else envs // 2, envpool_python)
    raise BenchmarkError(f"unknown subject {subject!r}")


@dataclass(frozen=True)
class Block:
    """One timed block: `steps` vector steps of `envs` environments."""

    subject: str
    model: str
    envs: int
    repeat: int
    steps: int
    wall_s: float
    cpu_s: float  # this process and every process it started

    @property
    def env_steps_per_s(self) -> float:
        return self.envs * self.steps / self.wall_s

    @property
    def cpu_us_per_env_step(self) -> float:
        return 1e6 * self.cpu_s / (self.envs * self.steps)


def time_block(stepper: Stepper, subject: str, model: str, envs: int, repeat: int, actions: np.ndarray) -> Block:
    """Step through `actions` (steps x envs x action size) once, timed in wall and CPU seconds (EnvPool: as
    many env steps, with actions of its own, timed in its process)."""
    if isinstance(stepper, EnvPoolStepper):
        wall, cpu = stepper.timed_block(actions.shape[0] * actions.shape[1])
        return Block(subject, model, envs, repeat, len(actions), wall, cpu)
    cpu = tree_cpu_seconds()
    started = time.perf_counter()
    for batch in actions:
        stepper.step(batch)
    wall = time.perf_counter() - started
    return Block(subject, model, envs, repeat, len(actions), wall, tree_cpu_seconds() - cpu)
