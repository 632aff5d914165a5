"""`CouplerEnv`: a Gymnasium environment driving one coupler server through a Session."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import gymnasium
import numpy as np

from coupler.controller.sensor_readings import SensorReadings
from coupler.controller.session import Session
from coupler.controller.world_session import WorldSession
from coupler.gym.camera_observations import CameraEntry, observation, observation_dict, wanted_cameras
from coupler.gym.frame_skip import checked_frame_skip
from coupler.gym.own_servers import serving, stop_timeout
from coupler.gym.rendering import (DEFAULT_HEIGHT, DEFAULT_WIDTH, RENDER_MODES, SceneRenderer, check_render_mode,
                                   render_fps, robots_of)
from coupler.gym.spaces import ActionLayout, observation_space
from coupler.gym.labels import action_names, observation_names
from coupler.gym.tasks import (ArmPick, ArmReach, BatchTask, NoTask, Task, ant, half_cheetah, hopper, humanoid,
                                inverted_pendulum, swimmer, walker2d)
from coupler.limits import REQUEST_TIMEOUT
from coupler.serve.serve_process import DEFAULT_START_TIMEOUT, ServeProcess
from coupler.wire.codec import encode
from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import IMAGE_KINDS

TASKS: dict[str, Any] = {"ArmReach": ArmReach, "ArmPick": ArmPick, "HalfCheetah-v5": half_cheetah,
                         "Hopper-v5": hopper, "Walker2d-v5": walker2d, "Swimmer-v5": swimmer,
                         "InvertedPendulum-v5": inverted_pendulum, "Ant-v5": ant, "Humanoid-v5": humanoid}


def world_data_flags(task: Task | BatchTask) -> list[str]:
    """The serve flags that send a task's `world_data` with every world's readings (none without)."""
    names = tuple(getattr(task, "world_data", ()))
    return ["--world-data", ",".join(names)] if names else []


def rows_with_data(sensors: np.ndarray, data: np.ndarray, task: Task | BatchTask) -> np.ndarray:
    """A task's rows: each world's sensor array, then its world data; Error when the server sent none."""
    if data.shape[1] == 0:
        raise Error(f"the server sends no world data, which the task reads: serve it with "
                    f"{' '.join(world_data_flags(task))}")
    return np.concatenate((sensors, data), axis=1)


def _copied(images: Any) -> SimpleNamespace:
    """One camera's images as arrays of their own (not views of the received frame)."""
    return SimpleNamespace(**{kind: None if getattr(images, kind) is None else getattr(images, kind).copy()
                              for kind in IMAGE_KINDS})


def _first_world(images: Any) -> SimpleNamespace:
    """The one world's images of a camera's stacked images (as arrays of their own)."""
    return SimpleNamespace(**{kind: None if getattr(images, kind) is None else getattr(images, kind)[0].copy()
                              for kind in IMAGE_KINDS})


def task_of(task: Task | BatchTask | str | None) -> Task | BatchTask:
    """A Task instance from an instance, the name of a shipped task, or None (no task)."""
    if task is None:
        return NoTask()
    if isinstance(task, str):
        try:
            return TASKS[task]()
        except KeyError:
            raise Error(f"no task named '{task}': give one of {', '.join(sorted(TASKS))} or a Task") from None
    if not isinstance(task, (Task, BatchTask)):
        raise Error(f"task {type(task).__name__} has no reward(readings, action) and terminated(readings)")
    return task


class CouplerEnv(gymnasium.Env[np.ndarray, np.ndarray]):
    """One simulated scene as a Gymnasium environment (spaces: see `coupler.gym.spaces`).

    Without `address`, starts its own `coupler serve --scene SCENE` on an ipc
    address in a temp dir and stops it on `close()`; with `address`, connects
    to a server already running there (the scene is then the server's).
    Each step holds the action for `frame_skip` simulation steps (the
    ControlMessage `steps` extension). `task` gives rewards and terminations:
    a Task, "ArmReach", "ArmPick", or None (reward 0, never terminated); a
    task with `reset_state` sets each episode's start through the Reset
    "reset-state" extension, drawn from the generator `reset(seed=...)` seeds.
    `info` has the simulated time ("simulated_time", s). Every server call
    waits at most `timeout` s. A `BatchTask` (such as "HalfCheetah-v5")
    brings its scene, frame skip, spaces and info keys; `scene` and
    `frame_skip` then default to its own.
    `observation_names` and `action_names` label every index. A batch task
    with `world_data` (such as "Ant-v5") is served as a batch of one world,
    whose answers carry those arrays (`address` must then serve `--worlds 1
    --world-data` them).
    `serve_flags` are more flags of `coupler serve` for the server it starts
    (["--record", "run.mcap"], say).

    `render_mode` is one of Gymnasium's: "rgb_array" and "depth_array" draw
    the scene offscreen (`width` x `height` pixels, from `camera`: a camera
    of the model by name or index, default MuJoCo's free camera, as `coupler
    render` draws), "human" shows it in MuJoCo's viewer; the picture is of
    the pose the last readings describe (`coupler.gym.rendering`), and
    `metadata["render_fps"]` is one frame per step; `renderer` is the
    `SceneRenderer` that draws (None without a render_mode). With `address`,
    give `scene` too (the server's) to render.

    `cameras` (names of the server's cameras, or (name, kinds); see
    `coupler.gym.camera_observations`) makes the observation a `Dict`: the
    state vector under "state", and each camera's images of the same state
    under "NAME/KIND". Without it nothing changes.
    """

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES}

    def __init__(self, scene: str | None = None, task: Task | BatchTask | str | None = None,
                 frame_skip: int | None = None, address: str | None = None, timeout: float = REQUEST_TIMEOUT,
                 start_timeout: float = DEFAULT_START_TIMEOUT, render_mode: str | None = None,
                 width: int = DEFAULT_WIDTH, height: int = DEFAULT_HEIGHT, camera: str | int | None = None,
                 serve_flags: Sequence[str] = (), cameras: Sequence[CameraEntry] = ()) -> None:
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.renderer: SceneRenderer | None = None
        self._shown: np.ndarray | None = None  # the sensor array of the last reset or step: what render() draws
        self.task = task_of(task)
        batch = self.task if isinstance(self.task, BatchTask) else None
        if render_mode is not None and address is not None and scene is None and batch is None:
            raise Error("render_mode with address needs scene too: the server's scene, to draw it")
        scene = scene if scene is not None else batch.scene if batch is not None else "arm"
        frame_skip = frame_skip if frame_skip is not None else batch.frame_skip if batch is not None else 1
        self.frame_skip = checked_frame_skip(frame_skip)
        world_data = world_data_flags(self.task)
        server_flags = ["--scene", scene] + (["--worlds", "1", *world_data] if world_data else [])
        self._server = (ServeProcess([*server_flags, *serve_flags], start_timeout=start_timeout,
                                     stop_timeout=stop_timeout(serve_flags))
                        if address is None else None)
        try:
            if self._server is not None:
                address = self._server.start().endpoint
            self.session = Session(address, timeout=timeout)  # type: ignore[arg-type]
        except BaseException:
            if self._server is not None:
                self._server.close()
            raise
        self._world: WorldSession | None = None
        self._cameras: list[tuple[str, tuple[str, ...]]] = []
        self._seen: dict[str, Any] = {}  # the last answer's images, by camera
        self._flat = FlatLayout(self.session.handshake)
        self._actions = ActionLayout(self.session.handshake)
        self.action_space = self._actions.space
        self.observation_space = observation_space(self._flat)
        self.observation_names = observation_names(self.session.handshake, self._flat)
        self.action_names = action_names(self._actions)
        self._batch = batch
        if batch is not None:
            try:
                self._world = WorldSession(self.session) if world_data else None
                batch.bind(self.session.handshake, self._flat)
            except BaseException:
                self.close()
                raise
            self.action_space = batch.action_space
            self.observation_space = batch.observation_space
            self.observation_names = batch.observation_names
            self.action_names = batch.action_names
        try:
            self._cameras = wanted_cameras(cameras, self.session.handshake)
        except BaseException:
            self.close()
            raise
        self._images: dict[str, Any] = dict(self._cameras)  # the request of each step, camera -> kinds
        if self._cameras:
            self.observation_space = observation_dict(self.observation_space, self._cameras, self.session.handshake)
        self._controls = self.session.controls()
        self._controls.steps = frame_skip if frame_skip > 1 else 0
        self._last: np.ndarray | None = None  # the last sensor array, for a batch task's step terms
        self.metadata = {**self.metadata, "render_fps": render_fps(self.session.handshake.time_step, self.frame_skip)}
        if render_mode is not None:
            try:
                self.renderer = SceneRenderer(scene, self.session.handshake, self._flat, render_mode, width, height,
                                              camera, robots_of(serve_flags))
            except BaseException:
                self.close()
                raise

    def _flat_readings(self, readings: SensorReadings) -> SensorReadings:
        """Readings backed by the flat sensor array (the observation), whatever they came from; their images (when
        asked for) kept for the observation."""
        if self._cameras:
            self._seen = {name: _copied(images) for name, images in readings.images.items()}
        if readings.values is not None:
            return readings
        read = self._flat.sensors.read(encode(readings.message))
        if read is None:
            raise Error("the server's sensor message does not have the shape its handshake declares")
        return SensorReadings.from_array(self.session.handshake, self._flat, *read)

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        reset_state = getattr(self.task, "reset_state", None)
        with serving(self._own_servers()):
            if self._world is not None:
                qpos, qvel = reset_state(self.np_random)  # type: ignore[misc]
                rows, time = self._world_exchange(None, resets=[0], qpos=qpos[None], qvel=qvel[None])
            else:
                if reset_state is None:
                    self.session.reset()
                else:
                    qpos, qvel = reset_state(self.np_random)
                    self.session.reset(qpos, qvel)
                readings = self._flat_readings(self.session.sensors(images=self._images or None))
                self._drawn(readings.values)  # type: ignore[arg-type]
                rows, time = readings.values[None], readings.time  # type: ignore[index]
        info: dict[str, Any] = {"simulated_time": time}
        if self._batch is None:
            return self._observed(readings.values), info  # type: ignore[return-value]
        self._last = rows[0]  # type: ignore[index]
        info |= {key: value[0] for key, value in self._batch.reset_infos(rows).items()}
        return self._observed(self._batch.observations(rows)[0]), info

    def _observed(self, state: np.ndarray) -> Any:
        """The observation of `state`: itself, or with cameras the Dict of it and the last answer's images."""
        # Contiguous as Gymnasium's: a policy's arithmetic (torch's) can round differently on another layout.
        state = np.ascontiguousarray(state)
        return observation(state, self._seen, self._cameras) if self._cameras else state

    def step(self, action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        given = np.asarray(action)  # a batch task's costs are of the action as given, in its own precision
        action = given.astype(np.float64)
        if action.shape != self.action_space.shape:
            raise Error(f"action of shape {action.shape}; this environment's actions have shape "
                        f"{self.action_space.shape}")
        if self._batch is not None:
            return self._batch_step(given, action)
        self._actions.apply(action, self._controls)
        with serving(self._own_servers()):
            readings = self._flat_readings(self.session.step(self._controls, images=self._images or None))
        self._drawn(readings.values)  # type: ignore[arg-type]
        reward = float(self.task.reward(readings, action))
        terminated = bool(self.task.terminated(readings))
        return (self._observed(readings.values), reward, terminated, False,  # type: ignore[arg-type]
                {"simulated_time": readings.time})

    def _batch_step(self, given: np.ndarray,
                    action: np.ndarray) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        batch = self._batch
        assert batch is not None
        if self._last is None:
            raise Error("step before reset: call reset() first")
        values = batch.control_values(action[None])
        with serving(self._own_servers()):
            if self._world is not None:
                rows, time = self._world_exchange(values, steps=self._controls.steps)
            else:
                self._actions.apply_values(values[0], self._controls)
                readings = self._flat_readings(self.session.step(self._controls, images=self._images or None))
                self._drawn(readings.values)  # type: ignore[arg-type]
                rows, time = readings.values[None], readings.time  # type: ignore[index]
        before, self._last = self._last, rows[0]
        rewards, terminated, terms = batch.step_terms(before[None], self._last[None], given[None])  # type: ignore
        info: dict[str, Any] = {"simulated_time": time}
        info |= {key: value[0] for key, value in terms.items()}
        return (self._observed(batch.observations(self._last[None])[0]), float(rewards[0]),  # type: ignore[index]
                bool(terminated[0]), False, info)

    def _drawn(self, values: np.ndarray) -> None:
        """Keep the readings `render()` draws; the human view follows them at once."""
        self._shown = values
        if self.render_mode == "human" and self.renderer is not None:
            self.renderer.show(values)

    def render(self) -> np.ndarray | None:
        """The picture of the last reset's or step's state, in `render_mode` (None for "human", which shows it)."""
        if self.renderer is None:
            gymnasium.logger.warn("render() without a render_mode: make the environment with render_mode="
                                  "'rgb_array', 'depth_array' or 'human'")
            return None
        if self._shown is None:
            raise Error("render before reset: call reset() first")
        if self.render_mode == "human":
            self.renderer.show(self._shown)
            return None
        return self.renderer.frame(self._shown)

    def _world_exchange(self, values: np.ndarray | None, **control: Any) -> tuple[np.ndarray, float]:
        """One Control for the one world; its row (the sensor array, then the world data) and time."""
        assert self._world is not None
        self._world.send(values, **control, images=self._images or None)
        sensors, times = self._world.receive()
        self._seen = {name: _first_world(images) for name, images in self._world.images.items()}
        self._drawn(sensors[0])
        return rows_with_data(sensors, self._world.data, self.task), float(times[0])

    def _own_servers(self) -> list[ServeProcess]:
        return [] if self._server is None else [self._server]

    def close(self) -> None:
        if self.renderer is not None:
            self.renderer.close()
            self.renderer = None
        session = getattr(self, "session", None)
        if session is not None:
            session.close()
        if self._server is not None:
            self._server.close()
            self._server = None
        super().close()
