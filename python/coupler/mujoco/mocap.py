"""Mocap bodies driven by controls: a Control's pose values written to `mjData.mocap_pos` and `mocap_quat`.

Each mocap body's object ends with the controls `coupler.mujoco.layout`
names MOCAP_CONTROLS: x, y, z (metres, world frame) then qw, qx, qy, qz.
Before the step, a Control carrying that object sets

    mocap_pos  = (x, y, z)
    mocap_quat = (qw, qx, qy, qz) / math.hypot(qw, qx, qy, qz)

so the body's orientation is always a unit quaternion. A quaternion whose
length is off 1 by more than `UNIT_TOLERANCE` is normalised and counted with
the clamped values (a warning once per body), as a value outside its range
is; a zero quaternion names no orientation and is refused
(CONTROL_MISMATCH), with nothing of the Control applied.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

import mujoco
import numpy as np

from coupler.mujoco.layout import MOCAP_CONTROLS, SceneLayout
from coupler.wire.errors import ProtocolError
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import ErrorCode

__all__ = ["MocapTargets", "UNIT_TOLERANCE"]

log = logging.getLogger(__name__)

UNIT_TOLERANCE = 1e-6
"""A quaternion this close to unit length is taken as meant to be one: normalised, not counted."""


@dataclass(frozen=True)
class _Target:
    name: str  # the body's (its object's) name
    object: int  # its object's index in the Control arrays' values_set
    mocap: int  # its index in mocap_pos and mocap_quat
    position: int  # where x sits in the values array; qw follows z


class MocapTargets:
    """The mocap bodies of a scene that a Control can move, and the writing of their pose."""

    def __init__(self, scene: SceneLayout, flat: FlatLayout) -> None:
        targets = []
        for k, placed in enumerate(flat.controls.objects):
            layout = scene.objects[placed.name]
            if layout.mocap >= 0:
                first = placed.offset + placed.size - len(MOCAP_CONTROLS)
                targets.append(_Target(placed.name, k, layout.mocap, first))
        self.targets = targets
        self._warned: set[str] = set()

    def __bool__(self) -> bool:
        return bool(self.targets)

    def check(self, values: np.ndarray, values_set: np.ndarray, where: str = "") -> None:
        """ProtocolError (CONTROL_MISMATCH) for the first zero quaternion the Control sets; `where` follows the
        body's name (" in world 3")."""
        for t in self.targets:
            if values_set[t.object] and not values[t.position + 3 : t.position + 7].any():
                raise ProtocolError(
                    f"control does not match the handshake: the orientation (qw, qx, qy, qz) of mocap body "
                    f"'{t.name}'{where} is zero, which is no rotation; (1, 0, 0, 0) keeps the world's",
                    ErrorCode.CONTROL_MISMATCH)

    def apply(self, values: np.ndarray, values_set: np.ndarray, data: mujoco.MjData) -> int:
        """Write the poses a checked Control sets; the number of quaternions normalised from another length."""
        normalised = 0
        for t in self.targets:
            if not values_set[t.object]:
                continue
            data.mocap_pos[t.mocap] = values[t.position : t.position + 3]
            quaternion = values[t.position + 3 : t.position + 7]
            length = math.hypot(*quaternion.tolist())
            data.mocap_quat[t.mocap] = quaternion / length
            if abs(length - 1.0) > UNIT_TOLERANCE:
                normalised += 1
                if t.name not in self._warned:
                    self._warned.add(t.name)
                    log.warning("the orientation of mocap body '%s' was sent with length %g and is normalised",
                                t.name, length)
        return normalised
