"""A MuJoCo scene served as a `coupler.simulation.Simulation`.

What the scene serves is derived from the model by `coupler.mujoco_layout`;
this module only moves values between protocol messages and `mjData`, through
index arrays built once, so no step looks anything up by name.

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

from coupler.messages import (
    ControlMessage,
    HandshakeMessage,
    ObjectSensors,
    Sensor,
    SensorMessage,
    ValueType,
)
from coupler.mujoco_layout import ObjectLayout, Reading, SceneLayout, scene_layout

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


class MujocoSimulation:
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
        self._objects: list[ObjectLayout] = list(self.layout.objects.values())
        self._bodies = np.array([o.body for o in self._objects], dtype=np.intp)
        self.clamped_values = 0
        self._warned_clamped: set[tuple[str, int]] = set()
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

    def apply(self, control: ControlMessage) -> None:
        ctrl = self.data.ctrl
        for name, sent in control.objects.items():
            target = self.layout.objects[name]
            if sent.values:
                values = np.asarray(sent.values, dtype=float) * target.ctrl_scale
                outside = (values < target.ctrl_low) | (values > target.ctrl_high)
                if outside.any():
                    self._count_clamped(target, outside)
                ctrl[target.ctrl_adr] = values
            for event, activated in sent.events.items():
                e = target.events[event]
                ctrl[e.ctrl_adr] = e.on if activated else e.off
        self._fresh = False

    def _count_clamped(self, target: ObjectLayout, outside: np.ndarray) -> None:
        indices = np.flatnonzero(outside)
        self.clamped_values += len(indices)
        for i in indices:
            # Once per control: a controller that saturates keeps doing so.
            if (target.name, int(i)) not in self._warned_clamped:
                self._warned_clamped.add((target.name, int(i)))
                low, high = sorted((target.ctrl_low[i] / target.ctrl_scale[i], target.ctrl_high[i] / target.ctrl_scale[i]))
                log.warning("control '%s' of '%s' was sent outside its range [%g, %g] and is clamped",
                            target.description.controls[i], target.name, low, high)

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

    def sensors(self) -> SensorMessage:
        d = self.data
        if not self._fresh:
            mujoco.mj_forward(self.model, d)
            self._fresh = True
        positions = d.xpos[self._bodies].tolist()
        quats = d.xquat[self._bodies].tolist()
        sensordata = d.sensordata.tolist() if self.model.nsensordata else []
        objects = {}
        for target, position, quat in zip(self._objects, positions, quats):
            joint_sensors = bool(target.description.joint_sensor_types)
            objects[target.name] = ObjectSensors(
                angles=d.qpos[target.qpos_adr].tolist() if joint_sensors else [],
                angular_velocities=d.qvel[target.dof_adr].tolist() if joint_sensors else [],
                torques=d.qfrc_actuator[target.dof_adr].tolist() if joint_sensors else [],
                object_sensors=[Sensor(ValueType.POSITION, tuple(position)), Sensor(ValueType.RPY, quat_to_rpy(*quat))],
                sensors={
                    name: [Sensor(r.type, _reading(sensordata, r)) for r in readings]
                    for name, readings in target.sensors.items()
                },
            )
        return SensorMessage(objects=objects, simulated_time=float(d.time))


def _reading(sensordata: list[float], reading: Reading) -> tuple[float, ...]:
    values = sensordata[reading.adr : reading.adr + reading.dim]
    if reading.type == ValueType.RPY:
        return quat_to_rpy(*values)
    return tuple(values)
