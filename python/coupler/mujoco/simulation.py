"""A MuJoCo scene served as a `coupler.serve.simulation.Simulation`.

What the scene serves is derived from the model by `coupler.mujoco.layout`;
this module only moves values between the flat arrays of the handshake
(`coupler.wire.flat_layout`) and `mjData`, through a scatter and a gather built
once (`coupler.mujoco.flat`), so no step looks anything up by name. Messages are
read and built through those same arrays, so both server paths send the same
numbers.

Readings describe the current state: after a step (or a change of controls)
the first `sensors()` call runs `mj_forward`, or just its first stages where
the readings need no more (`coupler.mujoco.readings_stages`: the readings
are the same bit for bit), so positions, sensor values and actuator forces
all belong to the same instant and the current controls. `mj_forward` writes
no state that the next step reads, so reading sensors never changes a
trajectory. What it computes for the state does serve the next step, though:
a step after its position and velocity stages runs only `mj_step2` (the
stages that the controls act on, and the integration), bit for bit what
`mj_step` computes, so reading the state after each step costs almost
nothing extra.

The scene is stepped and settled only through its C++ stepper
(`coupler.mujoco.native_stepper`), the very object the native hot path and
batched worlds step it with, which alone knows how far the state is
computed: every path that changes the state tells it (a step, a reset, a
Control applied here or in C++).
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from coupler.wire.errors import Error, ProtocolError
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import ErrorCode, HandshakeMessage
from coupler.mujoco.flat import control_scatter, gathered_arrays, sensor_gather
from coupler.mujoco.keyframes import UnknownKeyframe, keyframe_by_index, keyframe_by_name, keyframe_from_flag
from coupler.mujoco.layout import SceneLayout, scene_layout
from coupler.mujoco.native_stepper import mujoco_reset, mujoco_stepper
from coupler.mujoco.readings_stages import settling
from coupler.mujoco.warning_log import route_mujoco_warnings
from coupler.serve.hot_path import HotPathParts
from coupler.serve.simulation import MessagesFromArrays

if TYPE_CHECKING:
    from coupler import _native
    from coupler.mujoco.offscreen_cameras import OffscreenCameras

log = logging.getLogger(__name__)

_MESSAGE_LIMIT = 300  # characters of MuJoCo's message kept: it quotes the model's text


class ModelError(Error, ValueError):
    """An MJCF file MuJoCo cannot compile."""


def _compile(path: Path) -> mujoco.MjModel:
    """The compiled model of an MJCF file; one line naming the file and MuJoCo's reason if it fails."""
    try:
        if path.suffix.lower() == ".mjb":  # a compiled model, as a recording keeps it
            return mujoco.MjModel.from_binary_path(str(path))
        return mujoco.MjModel.from_xml_path(str(path))
    except ValueError as error:
        # MuJoCo's message spans several lines (the error, then the element and its line number).
        reason = " ".join(str(error).split())
        if len(reason) > _MESSAGE_LIMIT:
            reason = reason[:_MESSAGE_LIMIT] + "..."
        raise ModelError(f"MuJoCo cannot compile '{path}': {reason!r}") from None


class MujocoSimulation(MessagesFromArrays):
    """Serves a MuJoCo model: the scene of an MJCF file, or a compiled `mujoco.MjModel`.

    `time_step` (seconds) replaces the model's own time step; `robots` names
    bodies served as one robot each (`coupler.mujoco.layout.scene_layout`). `reset()`
    restores the start keyframe (`keyframe`: an index, or the text of
    `--keyframe NAME|INDEX`; keyframe 0 when not given and the model has one),
    else the model's reference configuration; a new simulation starts from
    that state.
    `clamped_values` counts the control values sent outside their actuator's
    ctrlrange (MuJoCo clamps them) and the mocap quaternions normalised from
    another length (`coupler.mujoco.layout`, "Mocap bodies"); `unmapped` lists what the model holds but
    the handshake cannot describe.

    Code that writes `data`'s positions or velocities itself must run
    `mujoco.mj_forward(model, data)` before the next `step()`.
    """

    def __init__(self, model: str | os.PathLike[str] | mujoco.MjModel, time_step: float | None = None,
                 robots: Sequence[str] = (), keyframe: int | str | None = None) -> None:
        route_mujoco_warnings()
        if isinstance(model, mujoco.MjModel):
            self.model = model
        else:
            path = Path(model)
            if not path.is_file():
                raise FileNotFoundError(f"no MJCF file at '{path}'")
            self.model = _compile(path)
        if time_step is not None:
            if not time_step > 0.0:
                raise ValueError(f"time step must be positive, got {time_step}")
            self.model.opt.timestep = time_step
        self.data = mujoco.MjData(self.model)
        self.robots = tuple(robots)
        self.layout: SceneLayout = scene_layout(self.model, self.robots)
        names = self.layout.handshake.keyframes
        if keyframe is None:
            self.start_keyframe: int | None = 0 if names else None
        elif isinstance(keyframe, str):
            self.start_keyframe = keyframe_from_flag(names, keyframe)
        else:
            self.start_keyframe = keyframe_by_index(names, keyframe)
        self.flat = FlatLayout(self.layout.handshake)
        self._gather = sensor_gather(self.layout, self.flat, self.data)
        self._scatter, self._ranges = control_scatter(self.layout, self.flat, self.data)
        # A Control moves mocap bodies: their poses, which the scatter writes, are of the position stage.
        self.moves_mocap = self._scatter.pose_count > 0
        self._stepper = mujoco_stepper(self.model, self.data,
                                       settling(self.model, gathered_arrays(self.layout, self.flat)))
        # The one reset of a world, in C++ (a batch resets its worlds through it too).
        self._reset = mujoco_reset(self.data, self._stepper, self.start_keyframe)
        self.clamped_values = 0
        self._warned_clamped: set[int] = set()
        # The "images" extension (coupler.mujoco.camera_serving): the cameras' renderer, or why there is none.
        self.images: OffscreenCameras | None = None
        self.images_unavailable = ""
        self.reset()

    @classmethod
    def from_xml_string(cls, xml: str, time_step: float | None = None, robots: Sequence[str] = ()) -> MujocoSimulation:
        """A simulation of an MJCF document given as text."""
        return cls(mujoco.MjModel.from_xml_string(xml), time_step, robots)

    @property
    def unmapped(self) -> list[str]:
        """Model elements the handshake does not describe, each named with the reason."""
        return self.layout.unmapped

    def handshake(self) -> HandshakeMessage:
        return self.layout.handshake

    def apply_values(
        self, values: np.ndarray, values_set: np.ndarray, events_set: np.ndarray, events_on: np.ndarray
    ) -> None:
        outside = self._scatter.apply(values, values_set, events_set, events_on)
        # The stepper knows how the state is left, whichever path changed it: here, as the C++ paths tell it.
        if self.moves_mocap:
            self._stepper.repositioned()  # the next step starts afresh
        else:
            self._stepper.unsettle()
        if outside:
            self.count_clamped(outside, values)

    def count_clamped(self, indices: list[int], values: np.ndarray) -> None:
        """Count what the scatter reports it did not write as sent (`indices` into `values`, the Control's values it
        applied): a value outside its range, a mocap body's quaternion normalised; warn once for each."""
        c = self._ranges
        self.clamped_values += len(indices)
        for i in indices:
            # Once each: a controller that saturates keeps doing so.
            if i in self._warned_clamped:
                continue
            self._warned_clamped.add(i)
            body = c.quaternions.get(i)
            if body is not None:
                length = math.hypot(*values[i : i + 4].tolist())
                log.warning("the orientation of mocap body '%s' was sent with length %g and is normalised",
                            body, length)
                continue
            low, high = c.value_range(i)
            obj, control = c.names[i]
            log.warning("control '%s' of '%s' was sent outside its range [%g, %g] and is clamped",
                        control, obj, low, high)

    def step(self, steps: int = 1) -> None:
        # A state mj_forward computed the position and velocity stages of (a change of controls does not touch
        # them) is stepped on from there, bit for bit as mj_step would: the stepper knows.
        self._stepper.step(steps)

    def reset(self, keyframe: int | None = None) -> None:
        """Restore `keyframe` (an index the model has), or without one the start keyframe or state."""
        if keyframe is not None:
            keyframe = keyframe_by_index(self.layout.handshake.keyframes, keyframe)
        self._reset_native(keyframe, None, None)

    def _reset_native(self, keyframe: int | None, qpos: list[float] | None, qvel: list[float] | None) -> None:
        """The C++ reset (`coupler.mujoco.native_stepper.mujoco_reset`): settled through the stepper."""
        self._reset.reset(-1 if keyframe is None else keyframe, qpos, qvel)

    def reset_to(self, qpos: list[float], qvel: list[float], keyframe: str | int | None = None) -> None:
        m = self.model
        for name, values, size in (("qpos", qpos, m.nq), ("qvel", qvel, m.nv)):
            if values and len(values) != size:
                raise ProtocolError(f"Reset {name} has {len(values)} numbers; the model has {size}",
                                    ErrorCode.CONTROL_MISMATCH)
            if values and not np.isfinite(values).all():
                first = int(np.flatnonzero(~np.isfinite(values))[0])
                raise ProtocolError(f"Reset {name} number {first} is {values[first]}: not finite",
                                    ErrorCode.CONTROL_MISMATCH)
        index: int | None = None
        if keyframe is not None:
            names = self.layout.handshake.keyframes
            try:
                index = keyframe_by_name(names, keyframe) if isinstance(keyframe, str) else keyframe_by_index(
                    names, keyframe)
            except UnknownKeyframe as unknown:
                raise ProtocolError(f"Reset: {unknown}", ErrorCode.CONTROL_MISMATCH) from None
        # One mj_forward (or its stages the readings need), of the state as given: it reads none of what it wrote
        # before (as Gymnasium resets).
        self._reset_native(index, qpos or None, qvel or None)

    def sensor_values(self, out: np.ndarray) -> float:
        self._stepper.settle()  # mj_forward, or the stages of it the readings need, unless settled
        self._gather.gather(out)
        return float(self.data.time)

    # The native hot path (coupler.serve.hot_path) steps this simulation in C++, on the same mjData.
    @property
    def settled(self) -> bool:
        """True when the state is as reading it leaves it: settled by the stepper (mj_forward, or the stages of it the
        readings need), nothing changed since."""
        return bool(self._stepper.settled)

    def settle(self) -> None:
        """Settle the current state unless it is settled, as a read would: the hot path steps from there (a Control
        applied and not yet stepped changes no stage a step starts from)."""
        self._stepper.settle()

    def hot_path_parts(self) -> HotPathParts | None:
        return self.native_parts()

    def refuse_values(self, values: np.ndarray, values_set: np.ndarray) -> None:
        self._scatter.check(values, values_set)

    def native_parts(self) -> HotPathParts:
        """The C++ scatter (actuator controls and mocap poses), gather and stepper of this scene."""
        return HotPathParts(self._scatter, self._gather, self._stepper)

    @property
    def native_reset(self) -> _native.MujocoReset:
        """The C++ reset of this scene, which `reset` and `reset_to` run (a batch runs its worlds' without the GIL)."""
        return self._reset

    def hot_path_served(self, clamped: int, first_clamped: list[int], failed: bool) -> None:
        if first_clamped:
            # Counts them, and warns once per control: the hot path returns after a first clamp, so the control
            # arrays still hold the Control that had it.
            self.count_clamped(first_clamped, self.flat.controls.values)
        self.clamped_values += clamped - len(first_clamped)
        if failed:
            self._stepper.repositioned()  # the state is unknown: settled again before a read, stepped afresh
