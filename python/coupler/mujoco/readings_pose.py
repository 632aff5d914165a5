"""A MuJoCo scene's pose rebuilt from its served readings, so a client can draw what its server simulates.

The readings hold everything a picture needs: every hinge's and slide's
position (the joint angles are qpos itself), each free root's world position
and roll-pitch-yaw, each ball joint's roll-pitch-yaw and each mocap root's
pose. `ReadingsPose` writes them back into an `mjData` of the same model
(qpos, mocap_pos, mocap_quat) and computes the rest as `mj_forward` does
(velocities and controls left at zero, which no picture shows). Joints the
readings do not cover (a joint left out of the handshake) stay at their
reference position. The orientations pass through roll-pitch-yaw, so a
quaternion comes back within a few units in the last place of the one
simulated; positions and angles come back exactly.
"""

from __future__ import annotations

import mujoco
import numpy as np

from coupler.mujoco.layout import SceneLayout
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import ValueType


def rpy_quaternion(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """The unit quaternion (w, x, y, z) whose roll, pitch and yaw (the server's, Z-Y-X) these are."""
    cr, sr = np.cos(roll / 2), np.sin(roll / 2)
    cp, sp = np.cos(pitch / 2), np.sin(pitch / 2)
    cy, sy = np.cos(yaw / 2), np.sin(yaw / 2)
    return np.array([cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
                     cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy])


class ReadingsPose:
    """Writes a flat sensor array of `layout`'s handshake (ordered as `flat`) into `data`'s pose."""

    def __init__(self, model: mujoco.MjModel, layout: SceneLayout, flat: FlatLayout) -> None:
        self.model = model
        places: list[int] = []
        self._angle_adr: list[int] = []
        self._free: list[tuple[int, int, int]] = []  # (qpos address, position reading, rpy reading)
        self._mocap: list[tuple[int, int, int]] = []  # (mocap id, position reading, rpy reading)
        self._quaternions: list[tuple[int, int]] = []  # (qpos address of a ball joint, its rpy reading)
        for name, target in layout.objects.items():
            slots = flat.objects[name]
            angles = slots.joint_parts.get("angles")
            if angles is not None:
                places += range(*angles)
                self._angle_adr += target.qpos_adr.tolist()
            first = {reading.type: reading.start for reading in reversed(slots.object_sensors)}
            if ValueType.POSITION in first and ValueType.RPY in first:
                pose = (first[ValueType.POSITION], first[ValueType.RPY])
                if target.free_dof >= 0:
                    joint = int(np.flatnonzero(model.jnt_dofadr == target.free_dof)[0])
                    self._free.append((int(model.jnt_qposadr[joint]), *pose))
                elif target.mocap >= 0:
                    self._mocap.append((target.mocap, *pose))
            for sensor, readings in target.sensors.items():
                for index, reading in enumerate(readings):
                    if reading.type == ValueType.RPY and reading.source == "qpos":
                        self._quaternions.append((reading.adr, slots.sensors[sensor][index].start))
        self._angle_places = np.array(places, dtype=np.intp)
        self._angle_adr_array = np.array(self._angle_adr, dtype=np.intp)

    def apply(self, values: np.ndarray, data: mujoco.MjData) -> None:
        """Set `data`'s pose from the sensor array `values` and compute where every body and camera is."""
        data.qpos[self._angle_adr_array] = values[self._angle_places]
        for adr, position, rpy in self._free:
            data.qpos[adr : adr + 3] = values[position : position + 3]
            data.qpos[adr + 3 : adr + 7] = rpy_quaternion(*values[rpy : rpy + 3])
        for mocap, position, rpy in self._mocap:
            data.mocap_pos[mocap] = values[position : position + 3]
            data.mocap_quat[mocap] = rpy_quaternion(*values[rpy : rpy + 3])
        for adr, rpy in self._quaternions:
            data.qpos[adr : adr + 4] = rpy_quaternion(*values[rpy : rpy + 3])
        mujoco.mj_forward(self.model, data)
