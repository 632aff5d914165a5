"""A MuJoCo scene served as a `coupler.simulation.Simulation`.

What the scene serves is derived from the model by `coupler.mujoco_layout`;
this module only moves values between the flat arrays of the handshake
(`coupler.flat_layout`) and `mjData`, through index arrays built once
(`coupler.mujoco_flat`), so no step looks anything up by name. Messages are
read and built through those same arrays, so both server paths send the same
numbers.

Readings describe the current state: after a step (or a change of controls)
the first `sensors()` call runs `mj_forward`, so positions, sensor values and
actuator forces all belong to the same instant and the current controls.
`mj_forward` writes no state that the next step reads, so reading sensors
never changes a trajectory.
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path

import mujoco
import numpy as np

from coupler.flat_layout import FlatLayout
from coupler.messages import HandshakeMessage
from coupler.mujoco_flat import control_index, sensor_index
from coupler.mujoco_layout import SceneLayout, scene_layout
from coupler.simulation import MessagesFromArrays

log = logging.getLogger(__name__)


def quat_to_rpy(w: float, x: float, y: float, z: float) -> tuple[float, float, float]:
    """Roll, pitch, yaw (rad) of the unit quaternion (w, x, y, z).

    The rotation is yaw about z, then pitch about the new y, then roll about
    the new x (R = Rz(yaw) Ry(pitch) Rx(roll)); pitch is in [-pi/2, pi/2].
    Scalar math: for the handful of values a message carries it is many
    times faster than NumPy.
    """
    roll = math.atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    # Rounding can push the sine a hair past 1 at gimbal lock.
    pitch = math.asin(max(-1.0, min(1.0, 2.0 * (w * y - z * x))))
    yaw = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return (roll, pitch, yaw)


class MujocoSimulation(MessagesFromArrays):
    """Serves a MuJoCo model: the scene of an MJCF file, or a compiled `mujoco.MjModel`.

    `time_step` (seconds) replaces the model's own time step. `reset()`
    restores keyframe 0 when the model has one, else the model's reference
    configuration; a new simulation starts from that state.
    `clamped_values` counts the control values sent outside their actuator's
    ctrlrange (MuJoCo clamps them); `unmapped` lists what the model holds but
    the handshake cannot describe.
    """

    def __init__(self, model: str | os.PathLike[str] | mujoco.MjModel, time_step: float | None = None) -> None:
        if isinstance(model, mujoco.MjModel):
            self.model = model
        else:
            path = Path(model)
            if not path.is_file():
                raise FileNotFoundError(f"no MJCF file at '{path}'")
            self.model = mujoco.MjModel.from_xml_path(str(path))
        if time_step is not None:
            if not time_step > 0.0:
                raise ValueError(f"time step must be positive, got {time_step}")
            self.model.opt.timestep = time_step
        self.data = mujoco.MjData(self.model)
        self.layout: SceneLayout = scene_layout(self.model)
        self.flat = FlatLayout(self.layout.handshake)
        self._sensor_index = sensor_index(self.layout, self.flat)
        self._control_index = control_index(self.layout, self.flat)
        self.clamped_values = 0
        self._warned_clamped: set[int] = set()
        self._fresh = False
        self.reset()

    @classmethod
    def from_xml_string(cls, xml: str, time_step: float | None = None) -> MujocoSimulation:
        """A simulation of an MJCF document given as text."""
        return cls(mujoco.MjModel.from_xml_string(xml), time_step)

    @property
    def unmapped(self) -> list[str]:
        """Model elements the handshake does not describe, each named with the reason."""
        return self.layout.unmapped

    def handshake(self) -> HandshakeMessage:
        return self.layout.handshake

    def apply_values(
        self, values: np.ndarray, values_set: np.ndarray, events_set: np.ndarray, events_on: np.ndarray
    ) -> None:
        c = self._control_index
        ctrl = self.data.ctrl
        taken = values_set[self.flat.value_object]
        scaled = values[taken] * c.scale[taken]
        outside = (scaled < c.low[taken]) | (scaled > c.high[taken])
        if outside.any():
            self._count_clamped(np.flatnonzero(taken)[outside])
        ctrl[c.ctrl_adr[taken]] = scaled
        if events_set.any():
            chosen = events_on[events_set]
            ctrl[c.event_adr[events_set]] = np.where(chosen, c.event_on[events_set], c.event_off[events_set])
        self._fresh = False

    def _count_clamped(self, indices: np.ndarray) -> None:
        c = self._control_index
        self.clamped_values += len(indices)
        for i in indices.tolist():
            # Once per control: a controller that saturates keeps doing so.
            if i not in self._warned_clamped:
                self._warned_clamped.add(i)
                low, high = sorted((c.low[i] / c.scale[i], c.high[i] / c.scale[i]))
                obj, control = c.names[i]
                log.warning("control '%s' of '%s' was sent outside its range [%g, %g] and is clamped",
                            control, obj, low, high)

    def step(self, steps: int = 1) -> None:
        mujoco.mj_step(self.model, self.data, nstep=steps)
        self._fresh = False

    def reset(self) -> None:
        if self.model.nkey > 0:
            mujoco.mj_resetDataKeyframe(self.model, self.data, 0)
        else:
            mujoco.mj_resetData(self.model, self.data)
        mujoco.mj_forward(self.model, self.data)
        self._fresh = True

    def sensor_values(self, out: np.ndarray) -> float:
        d = self.data
        if not self._fresh:
            mujoco.mj_forward(self.model, d)
            self._fresh = True
        g = self._sensor_index
        out[g.qpos.dst] = d.qpos[g.qpos.src]
        out[g.qvel.dst] = d.qvel[g.qvel.src]
        out[g.qfrc_actuator.dst] = d.qfrc_actuator[g.qfrc_actuator.src]
        out[g.xpos.dst] = d.xpos[g.xpos.src].ravel()
        out[g.xquat.dst] = [v for quat in d.xquat[g.xquat.src].tolist() for v in quat_to_rpy(*quat)]
        if len(g.sensordata.dst):
            out[g.sensordata.dst] = d.sensordata[g.sensordata.src]
        if len(g.sensor_quat.dst):
            sensordata = d.sensordata
            out[g.sensor_quat.dst] = [
                v for adr in g.sensor_quat.src.tolist() for v in quat_to_rpy(*sensordata[adr : adr + 4].tolist())
            ]
        return float(d.time)
