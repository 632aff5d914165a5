"""Serving a batch of worlds: N independent copies of one scene, driven by one Control for all of them.

A batched server (`coupler serve --worlds N`) announces the "worlds"
extension and N in its handshake. One Control frame then carries every
world's controls and the worlds to reset (`coupler.wire.world_frames`), and one
Sensor frame answers with every world's readings: a vector environment of N
episodes costs one round trip per step, resets included. World 0 is the
scene every ordinary request speaks of, so Click peers and clients that do
not use the extension see one world. What the worlds are (MuJoCo's, in
`coupler.mujoco.world_batch`) is behind the `Worlds` protocol.
"""

from __future__ import annotations

import dataclasses
import logging
import math
from collections.abc import Sequence
from concurrent import futures
from typing import Any, Protocol, runtime_checkable

import numpy as np

from coupler import _native
from coupler.serve.long_control import LONG_CONTROL_STEPS, LongControl
from coupler.serve.native_responder import NativeResponder
from coupler.serve.native_world_step import NativeWorldStep
from coupler.serve.responder import HELD_ANSWER, Answer
from coupler.serve.simulation import ArraySimulation, MessagesFromArrays
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.codec import encode
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import (
    EXTENSION_WORLDS,
    ErrorCode,
    ErrorMessage,
    HandshakeMessage,
    MessageType,
    ServerInfo,
)
from coupler.serve.image_answer import RENDER_TIMEOUT, Wanted
from coupler.serve.shared_images import SharedImages, offered_on
from coupler.serve.world_images import WorldImageAnswer
from coupler.wire.world_frames import WorldControl, encode_world_sensors, world_answer_bytes, world_control_in

log = logging.getLogger(__name__)

# Beyond this a batch is a typo or an attack on the machine's memory, never a setting anyone needs.
MAX_WORLDS = 65_536


@runtime_checkable
class Worlds(Protocol):
    """N copies of one scene that step, reset and read together."""

    count: int
    first: Any
    """World 0: an ArraySimulation (and a StateSimulation), the scene ordinary requests speak of."""
    control_width: int
    """Numbers per world in a Control for every world: its control values, then one per control event."""
    sensor_width: int
    """Numbers per world in the answer: its readings, in the sensor layout's order."""
    state_sizes: tuple[int, int]
    """The sizes of a world's qpos and qvel."""
    clamped_values: int
    """Control values sent outside their range in any world (and clamped)."""
    world_data: np.ndarray
    """Per world (count x width), its `--world-data` arrays as read after its last step or reset (width 0: none)."""

    def check(self, control: WorldControl) -> None:
        """Raise ProtocolError (CONTROL_MISMATCH) naming the first value of `control` (checked by
        `check_world_control`) the physics cannot take, in any world; nothing changes."""
        ...

    def hot_path(self, sensors_out: np.ndarray, times_out: np.ndarray, max_steps: int, stop_after: float = math.inf,
                 trace: bool = False, time_step: float = 0.0) -> Any:
        """The C++ hot path of these worlds (`_native.WorldHotPath`'s methods), answering from `sensors_out` and
        `times_out`: every Control for every world is applied, stepped and read through one
        (`coupler.serve.native_world_step`), each world's values within what `check` lets through."""
        ...

    def states(self, worlds: Sequence[int]) -> list[Any]:
        """The states of `worlds` (by index) for the cameras to render, read while nothing steps them."""
        ...


def _mismatch(text: str) -> ProtocolError:
    return ProtocolError(f"Control for every world does not match the handshake: {text}", ErrorCode.CONTROL_MISMATCH)


def check_world_control(control: WorldControl, worlds: Worlds) -> None:
    """Raise ProtocolError (CONTROL_MISMATCH) naming the first problem of a Control for every world (the one
    check, coupler::world_control_problem, which the native hot path passes Controls through too)."""
    shape = _native.WorldControlShape(worlds=worlds.count, control_width=worlds.control_width,
                                      nq=worlds.state_sizes[0], nv=worlds.state_sizes[1])
    problem = _native.world_control_problem(control.worlds, control.steps, control.controls, control.resets,
                                            control.qpos, control.qvel, shape)
    if problem is not None:
        raise _mismatch(problem)


class WorldsSimulation(MessagesFromArrays):
    """What a batched server serves as its scene: world 0, with a handshake announcing every world."""

    def __init__(self, worlds: Worlds) -> None:
        self.worlds = worlds
        self.first: ArraySimulation = worlds.first
        self.flat = self.first.flat

    def handshake(self) -> HandshakeMessage:
        first = self.first.handshake()
        extensions = list(first.server.extensions) if first.server is not None else []
        return dataclasses.replace(first, worlds=self.worlds.count,
                                   server=ServerInfo(extensions=[*extensions, EXTENSION_WORLDS]))

    @property
    def images(self) -> Any:
        """World 0's cameras (None: none served), which render every world's state too."""
        return getattr(self.first, "images", None)

    @property
    def images_unavailable(self) -> str:
        return str(getattr(self.first, "images_unavailable", ""))

    def sensor_values(self, out: np.ndarray) -> float:
        return self.first.sensor_values(out)

    def apply_values(self, values: np.ndarray, values_set: np.ndarray, events_set: np.ndarray,
                     events_on: np.ndarray) -> None:
        self.first.apply_values(values, values_set, events_set, events_on)

    def step(self, steps: int = 1) -> None:
        self.first.step(steps)

    def reset(self) -> None:
        self.first.reset()

    def reset_to(self, qpos: list[float], qvel: list[float], keyframe: str | int | None = None) -> None:
        self.first.reset_to(qpos, qvel, keyframe)  # type: ignore[attr-defined]

    @property
    def clamped_values(self) -> int:
        return self.worlds.clamped_values

    # World 0's parts for the single-world hot path (coupler.serve.hot_path.HotPathSimulation), which steps the
    # ordinary Controls that drive world 0, as on a server of one world.
    def settle(self) -> None:
        self.first.settle()  # type: ignore[attr-defined]  # has parts

    def hot_path_parts(self) -> Any:
        parts = getattr(self.first, "hot_path_parts", None)
        return None if parts is None else parts()

    def refuse_values(self, values: np.ndarray, values_set: np.ndarray) -> None:
        self.first.refuse_values(values, values_set)  # type: ignore[attr-defined]  # has parts

    def hot_path_served(self, clamped: int, first_clamped: list[int], failed: bool) -> None:
        self.first.hot_path_served(clamped, first_clamped, failed)  # type: ignore[attr-defined]  # has parts

    @property
    def unmapped(self) -> list[str]:
        return list(getattr(self.first, "unmapped", []))


class BatchedResponder(NativeResponder):
    """The native responder of a batched server: Controls for every world here, everything else as ever.

    `sim.simulation` must be a `WorldsSimulation`.
    """

    def __init__(self, address: str, sim: SimulationServer, trace_sizes: bool = False, **server_options: Any) -> None:
        if not isinstance(sim.simulation, WorldsSimulation):
            raise TypeError(f"a batched server serves a WorldsSimulation, not a {type(sim.simulation).__name__}")
        super().__init__(address, sim, trace_sizes=trace_sizes, **server_options)
        self.worlds = sim.simulation.worlds
        self._world_sensors = np.zeros((self.worlds.count, self.worlds.sensor_width))
        self._world_times = np.zeros(self.worlds.count)
        self.world_images = WorldImageAnswer(self.images, self.worlds.count)
        # What applies, steps and reads in C++ the Controls for every world served here: the C++ object of a lockstep
        # loop's hot path (coupler.serve.world_hot_path), else one made when first needed.
        self._world_step: NativeWorldStep | None = None
        data_width = self.worlds.world_data.shape[1] if self.worlds.world_data.ndim == 2 else 0
        self._answer_bytes = world_answer_bytes(self.worlds.count, self.worlds.sensor_width, data_width)
        # The "shm" extension for the worlds' arrays too, with or without cameras: a buffer holds the largest answer,
        # every camera's every kind of image in every world, whatever the socket's frame limit.
        if offered_on(self.endpoint) and server_options.get("shared_memory", True):
            largest = self._answer_bytes + self.world_images.largest_bytes()
            if self.shared_images is None or self.shared_images.announced.slot_bytes < largest:
                self.shared_images = SharedImages(max(largest, self.shared_images.announced.slot_bytes
                                                      if self.shared_images is not None else 0))
                self.images.shared_min_bytes = self.shared_images.announced.min_bytes
                self.images.shared_slot_bytes = self.shared_images.announced.slot_bytes

    @property
    def world_sensors(self) -> np.ndarray:
        """Every world's readings (count x sensor width) the answers are written from, by either path."""
        return self._world_sensors

    @property
    def world_times(self) -> np.ndarray:
        """Every world's time the answers are written from."""
        return self._world_times

    def _respond(self, request: _native.Request) -> Answer:
        # Under NativeResponder.respond, which logs every exchange when traced, Controls for every world too.
        if request.type == MessageType.CONTROL:
            control = world_control_in(request.frame)  # decoded once: it is most of what a batch's Python costs
            if control is not None:
                return self._world_control(request, control)
        return super()._respond(request)

    def step_worlds_with(self, step: NativeWorldStep) -> None:
        """Step the Controls for every world served here through `step` (a loop's): one C++ object steps the worlds."""
        self._world_step = step

    @property
    def world_step(self) -> NativeWorldStep:
        """The C++ step of the Controls for every world served here."""
        if self._world_step is None:
            self._world_step = NativeWorldStep.for_responder(self)
        return self._world_step

    def _world_control(self, request: _native.Request, control: WorldControl) -> Answer:
        refused = self._refused_unread(request)
        if refused is not None:
            return refused

        taken = max(control.steps, 1) if control.controls.size else 0
        step = self.world_step
        # As on the single-world path: under a loop, a Control of many steps is stepped in chunks, the loop serving
        # readers and newcomers and looking for a stop between them.
        chunked = step.chunks and self.sim.chunk_long_controls and taken > LONG_CONTROL_STEPS
        wanted = request.image_requests
        shared = request.shared_memory
        rendered: list[int] = []
        long: list[LongControl] = []

        def run() -> None:
            check_world_control(control, self.worlds)
            self.worlds.check(control)
            ring = self.shared_images.announced.slot_bytes if shared and self.shared_images is not None else 0
            rendered.extend(self.world_images.check(wanted, control.image_worlds, self._answer_bytes, ring))
            if chunked:
                long.append(step.start_chunks(request.frame, request.peer))
            else:
                step.take(request.frame)

        answer = self.sim.handle_driving(request.peer, taken, run)
        if isinstance(answer, ErrorMessage):
            return Answer(encode(answer))
        if long:
            # C++ writes the answer's arrays with the last chunk.
            long[0].answer = lambda: self._world_answer(taken, wanted=wanted, image_worlds=rendered,
                                                        shared=shared)
            self.sim.long_control = long[0]
            return HELD_ANSWER
        return self._world_answer(taken, wanted=wanted, image_worlds=rendered, request=request,
                                  shared=shared)

    def _world_answer(self, taken: int, wanted: Wanted = (), image_worlds: Sequence[int] = (),
                      request: _native.Request | None = None, shared: bool = False) -> Answer:
        """The answer to a Control for every world that took `taken` steps (C++ read every world into the answer's
        arrays), with the images `wanted` of `image_worlds`; `shared`: its arrays through shared memory, as the
        Control asked. With the `request` to answer, the images render while others are served (when answers wait
        for images here): the answer returned then sends nothing."""
        data = self.worlds.world_data
        time = float(self._world_times[0])
        ring = self.shared_images.ring if shared and self.shared_images is not None else None
        if not wanted:
            return Answer(encode_world_sensors(self._world_sensors, self._world_times, data if data.size else None,
                                               ring=ring), time, taken)
        failing = "the Control was applied, but its images could not be rendered"
        sensors, times, kept = self._world_sensors.copy(), self._world_times.copy(), data.copy() if data.size else None

        def compose(rendered: dict[str, dict[str, np.ndarray]]) -> bytes:
            # The ring as it is once rendered: a recording server gives it up meanwhile.
            now = self.shared_images.ring if shared and self.shared_images is not None else None
            return encode_world_sensors(sensors, times, kept, self.world_images.stacks(wanted, rendered), image_worlds,
                                        ring=now)

        # The renderer reads the worlds' own states: nothing steps them meanwhile, as their one controller waits
        # for this answer.
        images = self.world_images.submit(wanted, self.worlds.states(image_worlds))
        if request is not None and self.defer(request, Answer(b"", time, taken), images, failing, compose):
            return Answer(None, time, taken)
        try:
            return Answer(compose(images.result(RENDER_TIMEOUT)), time, taken)
        except (RuntimeError, futures.TimeoutError) as error:
            return Answer(self._render_failure(failing, error), time, taken)
