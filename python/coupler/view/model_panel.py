"""What a view shows beside the 3D scene: the controls (each actuator's ctrl) and a few readings (the
positions of the model's hinge and slide joints), named as in the model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from coupler.view.shown_state import ShownState

if TYPE_CHECKING:
    import mujoco

MAX_SHOWN = 16  # controls, and joints, listed at most: a panel longer than a screen is not read
_HINGE, _SLIDE = 3, 2


@dataclass(frozen=True)
class PanelRow:
    label: str
    index: int  # into ctrl (controls) or qpos (joints)


def _name(model: mujoco.MjModel, kind: int, index: int, prefix: str) -> str:
    import mujoco

    return mujoco.mj_id2name(model, kind, index) or f"{prefix}{index}"


def control_rows(model: mujoco.MjModel) -> list[PanelRow]:
    import mujoco

    return [PanelRow(_name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a, "actuator"), a)
            for a in range(min(model.nu, MAX_SHOWN))]


def joint_rows(model: mujoco.MjModel) -> list[PanelRow]:
    """The hinge and slide joints (angles in rad, positions in m), by their place in qpos."""
    import mujoco

    rows = []
    for joint in range(model.njnt):
        kind = int(model.jnt_type[joint])
        if kind in (_HINGE, _SLIDE) and len(rows) < MAX_SHOWN:
            unit = "rad" if kind == _HINGE else "m"
            rows.append(PanelRow(f"{_name(model, mujoco.mjtObj.mjOBJ_JOINT, joint, 'joint')} ({unit})",
                                 int(model.jnt_qposadr[joint])))
    return rows


def values(rows: list[PanelRow], vector: np.ndarray) -> list[float]:
    return [float(vector[row.index]) for row in rows]


def time_text(state: ShownState) -> str:
    return f"{state.time:.3f} s (step {state.step})"
