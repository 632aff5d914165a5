"""The mocap bodies' poses a recorded `coupler.record.v1.MujocoState` holds (`mocap_pos`, `mocap_quat`): no joint
moves a body with `mocap="true"`, so the positions (qpos) alone leave it, and whatever is welded to it, where the
model puts it.

A state without them (a model without mocap bodies, or a recording made before
they were kept) holds no poses: readers then draw those bodies where the model
puts them, as they always did.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import mujoco

    from coupler._proto.coupler_record_pb2 import MujocoState


class MocapMismatch(ValueError):
    """A state whose mocap poses are not of the model it is drawn with."""


@dataclass(frozen=True)
class MocapPoses:
    positions: np.ndarray  # (mocap bodies, 3): x, y, z in the world frame, as mjData.mocap_pos
    quaternions: np.ndarray  # (mocap bodies, 4): w, x, y, z, as mjData.mocap_quat


def mocap_poses(state: MujocoState, model: mujoco.MjModel) -> MocapPoses | None:
    """The poses `state` holds for `model`'s mocap bodies; None when it holds none; MocapMismatch when they are not
    one position and one quaternion per mocap body of the model."""
    positions, quaternions = state.mocap_pos, state.mocap_quat
    if not positions and not quaternions:
        return None
    bodies = model.nmocap
    if len(positions) != 3 * bodies or len(quaternions) != 4 * bodies:
        raise MocapMismatch(f"a state of {len(positions)} mocap position and {len(quaternions)} mocap orientation "
                            f"values, not of the model drawn ({bodies} mocap bodies: {3 * bodies} and "
                            f"{4 * bodies})")
    return MocapPoses(np.array(positions).reshape(bodies, 3), np.array(quaternions).reshape(bodies, 4))


def place_mocap(data: Any, poses: MocapPoses | None) -> None:
    """Set mjData `data`'s mocap bodies to `poses` (None: leave them as they are)."""
    if poses is None:
        return
    data.mocap_pos[:] = poses.positions
    data.mocap_quat[:] = poses.quaternions
