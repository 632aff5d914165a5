"""`CouplerVectorEnv`: a Gymnasium vector environment over batched coupler servers, one round trip per step."""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from coupler.controller.sensor_readings import SensorReadings
from coupler.controller.session import Session
from coupler.controller.world_session import WorldCameraImages, WorldSession
from coupler.gym.camera_observations import CameraEntry, observation, observation_dict, wanted_cameras
from coupler.gym.env import rows_with_data, task_of, world_data_flags
from coupler.gym.spaces import EVENT_THRESHOLD, ActionLayout, observation_space
from coupler.gym.tasks import BatchTask, NoTask, Task
from coupler.gym.frame_skip import checked_frame_skip
from coupler.gym.labels import action_names, observation_names
from coupler.gym.own_servers import serving, stop_timeout
from coupler.gym.rendering import (DEFAULT_HEIGHT, DEFAULT_WIDTH, RENDER_MODES, SceneRenderer, check_render_mode,
                                   render_fps, robots_of)
from coupler.limits import REQUEST_TIMEOUT
from coupler.serve.serve_process import DEFAULT_START_TIMEOUT, ServeProcess
from coupler.wire.errors import Error
from coupler.wire.messages import IMAGE_KINDS


def stacked_images(servers: list[WorldCameraImages], shared: bool = False) -> SimpleNamespace:
    """One camera's images of every world, from each server's answer: the one answer's arrays themselves (views of
    its frame), or several answers' stacked into new ones; copied when they lie in shared memory (`shared`), which
    later answers overwrite."""
    kinds = {}
    for kind in IMAGE_KINDS:
        parts = [getattr(server, kind) for server in servers]
        one = (parts[0].copy() if shared else parts[0]) if parts[0] is not None else None
        kinds[kind] = one if len(parts) == 1 else None if parts[0] is None else np.concatenate(parts)
    return SimpleNamespace(**kinds)


def _shares(total: int, parts: int) -> list[int]:
    """`total` split into `parts` whole shares as even as can be, the larger first."""
    return [total // parts + (1 if k < total % parts else 0) for k in range(parts)]



class CouplerVectorEnv(gymnasium.vector.VectorEnv):
    """`num_envs` copies of a scene as one vector environment: every step is one Control and one Sensor per server.

    Without `addresses`, starts `servers` batched servers of its own
    (`coupler serve --scene SCENE --worlds K --threads T` on ipc addresses,
    K the server's share of `num_envs`, T = `threads`, or the machine's cores
    when None), stopped on `close()`;
    with `addresses`, drives servers already running there (`transport`:
    the Client keywords for all of them, CURVE keys say), and with `pool`
    (a `coupler.ray.ServerPool`, or anything with `endpoints`: a list of
    (address, Client keywords)) the pool's servers; their worlds, in order,
    must add up to `num_envs`. Every server steps at the same time: Controls
    go out to all before any answer is awaited.

    Environment i is world i: the same actions, spaces, observations and
    rewards as `CouplerEnv(scene, task, frame_skip)` (see it, and
    `coupler.gym.spaces`), within a `TimeLimit` of `max_episode_steps`.
    Autoreset follows Gymnasium's NEXT_STEP mode (SyncVectorEnv's default):
    the step after an episode ends restarts that world, ignoring its action,
    and returns its first observation with reward 0; the restart rides in the
    same Control as the other worlds' actions. `reset(seed=s)` seeds world
    i's generator with s + i (as SyncVectorEnv seeds its environments); a
    task's `reset_state` draws each world's start from it. `infos` carry
    "simulated_time" (s) per world. Every server call waits at most `timeout` s.

    `reset(options={"reset_mask": mask})` (Gymnasium's partial reset, a bool
    array of `num_envs`) restarts only the marked worlds, in one round trip
    that steps none, and returns every world's observation: the others' are
    their current ones, their episodes go on. A seed then seeds only the
    marked worlds' generators.

    A `BatchTask` (such as "HalfCheetah-v5") brings its scene, frame skip,
    spaces and info keys, and computes every world's observation, reward,
    termination and info values in one NumPy pass over the batch.
    `single_observation_names` and `single_action_names` label every index.
    `serve_flags` are more flags of `coupler serve` for the servers it starts.

    `render_mode` is as `CouplerEnv`'s: `render()` returns every world's
    picture (a tuple, world i's at i, as Gymnasium's vector environments do,
    so `gymnasium.wrappers.vector.RecordVideo` tiles them), and "human"
    shows world 0. With `addresses` or `pool`, give `scene` too to render.

    `cameras` (as `CouplerEnv` takes them) makes every observation a `Dict`:
    the stacked states under "state" and each camera's images of every world,
    stacked (N, H, W, 3) uint8 for rgb, (N, H, W) float32 metres for depth and
    int32 geom ids for segmentation, under "NAME/KIND"; each server renders
    its worlds' images with its answer, in the same round trip.

    The servers it starts (and those at ipc:// `addresses`) send the answers'
    arrays (readings, world data, images) through shared memory (the "shm"
    extension, see `coupler.controller.world_session`) rather than through
    the socket;
    `shared_memory=False` sends them through the socket. Observations are
    arrays of their own either way.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": RENDER_MODES}

    def __init__(self, num_envs: int = 1, scene: str | None = None, task: Task | BatchTask | str | None = None,
                 frame_skip: int | None = None,
                 max_episode_steps: int | None = None, servers: int = 1, threads: int | None = None,
                 addresses: list[str] | None = None, pool: Any = None, timeout: float = REQUEST_TIMEOUT,
                 start_timeout: float = DEFAULT_START_TIMEOUT, render_mode: str | None = None,
                 width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT, camera: str | int | None = None,
                 serve_flags: tuple[str, ...] | list[str] = (), cameras: Sequence[CameraEntry] = (),
                 **transport: Any) -> None:
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.renderer: SceneRenderer | None = None
        self._shown: np.ndarray | None = None  # every world's sensor array after the last reset or step
        self._serve_flags = list(serve_flags)
        self._shared_memory = bool(transport.get("shared_memory", True))  # for the servers it starts too
        if not isinstance(num_envs, int) or num_envs < 1:
            raise Error(f"num_envs must be a positive whole number, got {num_envs!r}")
        if max_episode_steps is not None and max_episode_steps < 1:
            raise Error(f"max_episode_steps must be positive or None, got {max_episode_steps!r}")
        if addresses is not None and pool is not None:
            raise Error("give addresses or a pool, not both")
        endpoints = pool.endpoints if pool is not None else (
            None if addresses is None else [(address, transport) for address in addresses])
        if endpoints is None and not 1 <= servers <= num_envs:
            raise Error(f"servers must be from 1 to num_envs ({num_envs}), got {servers!r}")
        if endpoints is None and servers > 1 and "--record" in self._serve_flags:
            raise Error(f"serve_flags --record with servers={servers}: every server would record to the same file; "
                        "record with servers=1 (one server records every world)")
        self.num_envs = num_envs
        self.task = task_of(task)
        batch = self.task if isinstance(self.task, BatchTask) else None
        if render_mode is not None and endpoints is not None and scene is None and batch is None:
            raise Error("render_mode with addresses or a pool needs scene too: the servers' scene, to draw it")
        scene = scene if scene is not None else batch.scene if batch is not None else "arm"
        frame_skip = frame_skip if frame_skip is not None else batch.frame_skip if batch is not None else 1
        self.frame_skip = checked_frame_skip(frame_skip)
        self.max_episode_steps = max_episode_steps
        self._world_data = bool(world_data_flags(self.task))
        self._processes: list[ServeProcess] = []
        self._worlds: list[WorldSession] = []
        try:
            self._connect(scene, servers, threads, endpoints, timeout, start_timeout)
        except BaseException:
            self.close_extras()
            raise
        first = self._worlds[0]
        self.handshake = first.session.handshake
        self._flat = first.flat
        self._actions = ActionLayout(self.handshake)
        self.single_action_space = self._actions.space
        self.single_observation_space = observation_space(self._flat)
        self.single_observation_names = observation_names(self.handshake, self._flat)
        self.single_action_names = action_names(self._actions)
        self._batch = batch
        if batch is not None:
            try:
                batch.bind(self.handshake, self._flat)
            except BaseException:
                self.close_extras()
                raise
            self.single_action_space = batch.action_space
            self.single_observation_space = batch.observation_space
            self.single_observation_names = batch.observation_names
            self.single_action_names = batch.action_names
        try:
            self._cameras = wanted_cameras(cameras, self.handshake)
        except BaseException:
            self.close_extras()
            raise
        self._images: dict[str, Any] = dict(self._cameras)  # the request of each Control, camera -> kinds
        self._seen: dict[str, SimpleNamespace] = {}  # every world's images of the last answers, by camera
        if self._cameras:
            self.single_observation_space = observation_dict(self.single_observation_space, self._cameras,
                                                             self.handshake)
        self._last = np.zeros((num_envs, first.sensor_width))  # every world's last sensors, for a batch task
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._rngs: list[np.random.Generator] = [seeding.np_random()[0] for _ in range(num_envs)]
        self._elapsed = np.zeros(num_envs, dtype=np.int64)
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self._reset_state = getattr(self.task, "reset_state", None)
        self._rewarded = not isinstance(self.task, NoTask)
        self.metadata = {**self.metadata, "render_fps": render_fps(self.handshake.time_step, self.frame_skip)}
        if render_mode is not None:
            try:
                self.renderer = SceneRenderer(scene, self.handshake, self._flat, render_mode, width, height, camera,
                                              robots_of(self._serve_flags))
            except BaseException:
                self.close_extras()
                raise

    def _connect(self, scene: str, servers: int, threads: int | None,
                 endpoints: list[tuple[str, dict[str, Any]]] | None,
                 timeout: float, start_timeout: float) -> None:
        if endpoints is None:
            # Its own servers, on ipc paths only this user reaches, are trusted both ways: no frame limit, so that
            # the Controls and answers of many worlds (megabytes) get through.
            for worlds in _shares(self.num_envs, servers):
                process = ServeProcess(["--scene", scene, "--worlds", str(worlds),
                                        "--threads", str(min(threads or len(os.sched_getaffinity(0)), worlds)),
                                        "--max-frame-bytes", "0", *world_data_flags(self.task), *self._serve_flags],
                                       start_timeout=start_timeout, stop_timeout=stop_timeout(self._serve_flags))
                self._processes.append(process)
                process.launch()  # every server loads its scene at once; each is awaited below
            self._worlds = [WorldSession(Session(process.start().endpoint, timeout=timeout,  # type: ignore[arg-type]
                                                 max_frame_bytes=0,
                                                 shared_memory=self._shared_memory))
                            for process in self._processes]
        else:
            for address, transport in endpoints:
                self._worlds.append(WorldSession(Session(address, timeout=timeout, **transport)))
        total = sum(w.count for w in self._worlds)
        if total != self.num_envs:
            raise Error(f"the servers hold {total} worlds in all; num_envs is {self.num_envs}")
        shapes = {(w.control_width, w.sensor_width) for w in self._worlds}
        if len(shapes) > 1 or any(w.session.handshake.scene() != self._worlds[0].session.handshake.scene()
                                  for w in self._worlds[1:]):
            raise Error("the servers serve different scenes")

    def _starts(self, worlds: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Per world to reset, its task's start (qpos rows, qvel rows), or None for the scene's initial state."""
        if self._reset_state is None or worlds.size == 0:
            return None, None
        states = [self._reset_state(self._rngs[i]) for i in worlds]
        rows: list[np.ndarray | None] = []
        for part in (0, 1):
            sizes = {np.size(state[part]) for state in states}
            if len(sizes) > 1:
                raise Error(f"the task's reset_state gave {'qpos' if part == 0 else 'qvel'} of sizes {sorted(sizes)}"
                            " for different worlds; give the whole state every time, or always none")
            rows.append(np.array([np.asarray(s[part], dtype=np.float64) for s in states]) if sizes != {0} else None)
        return rows[0], rows[1]

    def _exchange(self, controls: np.ndarray | None, resets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One round trip with every server; every world's readings (a new array) and times."""
        if not self._worlds:
            raise Error("this environment is closed: make a new one")
        with serving(self._processes):
            return self._exchange_served(controls, resets)

    def _exchange_served(self, controls: np.ndarray | None, resets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        qpos, qvel = self._starts(resets)
        steps = self.frame_skip if self.frame_skip > 1 else 0
        start = 0
        for worlds in self._worlds:
            stop = start + worlds.count
            mine = (resets >= start) & (resets < stop)
            offset = int(np.count_nonzero(resets < start))
            taken = slice(offset, offset + int(np.count_nonzero(mine)))
            worlds.send(None if controls is None else controls[start:stop], steps, (resets[mine] - start).tolist(),
                        None if qpos is None else qpos[taken], None if qvel is None else qvel[taken],
                        images=self._images or None)
            start = stop
        answers = [worlds.receive() for worlds in self._worlds]
        if self._cameras:
            shared = any(w.session.shared_images is not None for w in self._worlds)
            self._seen = {name: stacked_images([w.images[name] for w in self._worlds], shared)
                          for name, _ in self._cameras}
        times = np.concatenate([a[1] for a in answers])
        if len(answers) == 1:
            # Views of the one answer's frame: the rows below are their only copy.
            sensors, data = answers[0][0], self._worlds[0].data
        else:
            sensors, data = np.concatenate([a[0] for a in answers]), np.concatenate([w.data for w in self._worlds])
        if self._world_data:
            # A task's rows: each world's sensor array, then its world data.
            return rows_with_data(sensors, data, self.task), times
        return (sensors.copy() if len(answers) == 1 else sensors), times

    def _controls(self, actions: np.ndarray) -> np.ndarray:
        """Every world's Control numbers: its control values in their units, then its events as 0 or 1."""
        if self._batch is not None:
            return self._batch.control_values(actions)
        layout = self._actions
        values = layout.control_values(actions)
        events = (actions[:, layout.value_count :] >= EVENT_THRESHOLD).astype(np.float64)
        return np.concatenate([values, events], axis=1) if events.size else values

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        mask = self._reset_mask(options)
        if isinstance(seed, int):
            super().reset(seed=seed)
            seed = [seed + i for i in range(self.num_envs)]
        if seed is not None:
            if len(seed) != self.num_envs:
                raise Error(f"{len(seed)} seeds for {self.num_envs} environments")
            for i, s in enumerate(seed):
                if s is not None and (mask is None or mask[i]):
                    self._rngs[i] = seeding.np_random(s)[0]
        worlds = np.arange(self.num_envs) if mask is None else np.flatnonzero(mask)
        sensors, times = self._exchange(None, worlds)
        self._drawn(sensors)
        self._elapsed[worlds] = 0
        self._autoreset[worlds] = False
        if self._batch is None:
            return self._observed(sensors), self._infos(times)
        self._last = sensors
        infos = self._infos(times)
        resets = np.zeros(self.num_envs, dtype=bool)
        resets[worlds] = True
        self._add_infos(infos, self._batch.reset_infos(sensors), resets)
        return self._observed(self._batch.observations(sensors)), infos

    def _observed(self, states: np.ndarray) -> Any:
        """Every world's observation: `states`, or with cameras the Dict of them and every world's images."""
        # In C order as Gymnasium's: a policy's arithmetic (torch's) can round differently on another layout.
        states = np.ascontiguousarray(states)
        return observation(states, self._seen, self._cameras) if self._cameras else states

    def _reset_mask(self, options: dict[str, Any] | None) -> np.ndarray | None:
        """`options["reset_mask"]` checked: a bool array of num_envs with at least one True, or None when not given."""
        if not options or "reset_mask" not in options:
            return None
        mask = options["reset_mask"]
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
            raise Error(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), got "
                        f"{type(mask).__name__} {getattr(mask, 'dtype', '')} {getattr(mask, 'shape', '')}".rstrip())
        if not mask.any():
            raise Error("options['reset_mask'] resets no world: mark at least one")
        return mask

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        given = np.asarray(actions)  # a batch task's costs are of the actions as given, in their own precision
        actions = given.astype(np.float64)
        if actions.shape != self.action_space.shape:
            raise Error(f"actions of shape {actions.shape}; this environment's actions have shape "
                        f"{self.action_space.shape}")
        restarting = np.flatnonzero(self._autoreset)
        sensors, times = self._exchange(self._controls(actions), restarting)
        self._drawn(sensors)
        rewards = np.zeros(self.num_envs)
        terminated = np.zeros(self.num_envs, dtype=bool)
        stepped = ~self._autoreset
        infos = self._infos(times)
        if self._batch is not None:
            before, self._last = self._last, sensors
            rewards, terminated, terms = self._batch.step_terms(before, sensors, given)
            rewards = np.where(stepped, rewards, 0.0)
            terminated &= stepped
            self._add_infos(infos, terms, stepped)
            if not stepped.all():
                self._add_infos(infos, self._batch.reset_infos(sensors), ~stepped)
            sensors = self._batch.observations(sensors)
        elif self._rewarded:
            for i in np.flatnonzero(stepped):
                readings = SensorReadings.from_array(self.handshake, self._flat, sensors[i], float(times[i]))
                rewards[i] = self.task.reward(readings, actions[i])
                terminated[i] = self.task.terminated(readings)
        self._elapsed = np.where(stepped, self._elapsed + 1, 0)
        truncated = (stepped & (self._elapsed >= self.max_episode_steps) if self.max_episode_steps is not None
                     else np.zeros(self.num_envs, dtype=bool))
        self._autoreset = terminated | truncated
        return self._observed(sensors), rewards, terminated, truncated, infos

    def _drawn(self, sensors: np.ndarray) -> None:
        """Keep every world's readings for `render()`; the human view follows world 0's at once."""
        self._shown = sensors
        if self.render_mode == "human" and self.renderer is not None:
            self.renderer.show(sensors[0])

    def render(self) -> tuple[np.ndarray, ...] | None:
        """Every world's picture of its last reset's or step's state, in `render_mode` (None for "human", which
        shows world 0's)."""
        if self.renderer is None:
            gymnasium.logger.warn("render() without a render_mode: make the environments with render_mode="
                                  "'rgb_array', 'depth_array' or 'human'")
            return None
        if self._shown is None:
            raise Error("render before reset: call reset() first")
        if self.render_mode == "human":
            self.renderer.show(self._shown[0])
            return None
        return tuple(self.renderer.frame(row) for row in self._shown)

    def _infos(self, times: np.ndarray) -> dict[str, Any]:
        return {"simulated_time": times.copy(), "_simulated_time": np.ones(self.num_envs, dtype=bool)}

    def _add_infos(self, infos: dict[str, Any], values: dict[str, np.ndarray], worlds: np.ndarray) -> None:
        """Values of some worlds (`worlds`, a mask) into `infos`, Gymnasium's vector way: "key" and its mask "_key".

        A value may be an array per world (rows of `values[key]`), as SyncVectorEnv stacks arrays."""
        if not worlds.any():
            return
        every = bool(worlds.all())
        for key, value in values.items():
            value = np.asarray(value)
            if every and key not in infos and value.shape[:1] == (self.num_envs,):
                # Every world's value, as the selection below would give it (a copy: the values may be views of
                # the rows the next step's terms read).
                infos[key], infos[f"_{key}"] = value.copy(), np.ones(self.num_envs, dtype=bool)
                continue
            if key not in infos:
                infos[key] = np.zeros(value.shape, dtype=value.dtype)
                infos[f"_{key}"] = np.zeros(self.num_envs, dtype=bool)
            infos[key] = np.where(worlds.reshape(-1, *[1] * (value.ndim - 1)), value, infos[key])
            infos[f"_{key}"] = infos[f"_{key}"] | worlds

    def close_extras(self, **kwargs: Any) -> None:
        if self.renderer is not None:
            self.renderer.close()
            self.renderer = None
        for worlds in self._worlds:
            worlds.session.close()
        self._worlds = []
        for process in self._processes:
            process.close()
        self._processes = []
