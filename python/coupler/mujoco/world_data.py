"""MuJoCo arrays sent with every world's readings (`coupler serve --worlds N --world-data NAMES`).

A task computed over a batch of worlds may need what the readings do not
hold: Gymnasium's Ant and Humanoid observe MuJoCo's `cfrc_ext`, `cinert`,
`cvel` and `qfrc_actuator` and measure progress by `xpos` or `xipos`. They
are read as Gymnasium reads them, right after `mj_step` and, when one of
the arrays only `mj_rnePostConstraint` computes is named, after it: before
the stages of `mj_forward` that make the readings current move the
kinematics to the new state. A reset world's are read after its reset.
"""

from __future__ import annotations

import mujoco
import numpy as np

from coupler import _native
from coupler.wire.errors import Error

# The arrays of mjData that mj_step leaves uncomputed and mj_rnePostConstraint computes.
POST_CONSTRAINT = frozenset({"cacc", "cfrc_int", "cfrc_ext"})


def checked_world_data(names: tuple[str, ...], data: mujoco.MjData) -> tuple[str, ...]:
    """`names` when each is a floating-point array of mjData; Error naming the first that is not."""
    for name in names:
        value = getattr(data, name, None) if not name.startswith("_") else None
        if not isinstance(value, np.ndarray) or value.dtype != np.float64:
            raise Error(f"--world-data: mjData has no array of numbers named '{name[:64]}' (give names such as "
                        "qpos, qvel, xpos, cfrc_ext)")
    return names


class WorldData:
    """One world's `names` arrays of mjData, flat and in that order, as one row of `width` numbers."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, names: tuple[str, ...]) -> None:
        self.model = model
        self.data = data
        arrays = [getattr(data, name).reshape(-1) for name in checked_world_data(names, data)]
        self.width = sum(a.size for a in arrays)
        self.gather = _native.SensorGather(self.width)
        place = 0
        for array in arrays:
            self.gather.add_copies(array, list(range(place, place + array.size)), list(range(array.size)))
            place += array.size
        # mj_step leaves these uncomputed: the batch runs mj_rnePostConstraint after the step (as Gymnasium does).
        self.post_constraint = bool(POST_CONSTRAINT & set(names))

    def read(self, out: np.ndarray) -> None:
        """Copy the arrays into `out` (`width` numbers)."""
        self.gather.gather(out)
