"""Where a view's camera starts: on the model's centre, from about its extent away, a little from above and
to the side, as MuJoCo's free camera starts (its vertical field of view, 45 degrees)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import mujoco

FOV_DEGREES = 45.0  # vertical, as MuJoCo's free camera
_DISTANCE = 1.5  # extents of the model from its centre
_DIRECTION = np.array([0.35, -1.0, 0.55])  # from the centre towards the camera


@dataclass(frozen=True)
class Camera:
    position: np.ndarray
    look_at: np.ndarray
    fov_degrees: float  # vertical


def starting_camera(model: mujoco.MjModel) -> Camera:
    center = np.array(model.stat.center, dtype=float)
    direction = _DIRECTION / np.linalg.norm(_DIRECTION)
    return Camera(center + _DISTANCE * float(model.stat.extent) * direction, center, FOV_DEGREES)
