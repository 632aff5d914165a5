"""Pendulums for the tests of a batched server: the MJCF, and the same pendulums stepped by MuJoCo directly, world by
world, as a batched server's answers are to read."""

from __future__ import annotations

import mujoco
import numpy as np

TIME_STEP = 0.01
# One hinge driven by one motor: a world's control value is its ctrl (clamped to [-2, 2]), its qpos and qvel come
# back with its answer.
PENDULUM = f"""
<mujoco>
  <option timestep="{TIME_STEP}"/>
  <worldbody>
    <body name="arm">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" mass="1"/>
    </body>
  </worldbody>
  <actuator><motor name="m" joint="hinge" ctrlrange="-2 2"/></actuator>
</mujoco>
"""


class MujocoPendulums:
    """`worlds` pendulums stepped by MuJoCo directly."""

    def __init__(self, worlds: int) -> None:
        self.model = mujoco.MjModel.from_xml_string(PENDULUM)
        self.data = [mujoco.MjData(self.model) for _ in range(worlds)]

    def run(self, controls: np.ndarray | None, steps: int, resets: list[int], qpos: np.ndarray | None = None,
            qvel: np.ndarray | None = None) -> np.ndarray:
        """Every world's (qpos, qvel) once the worlds `resets` lists are reset (to `qpos` and `qvel`, one value per
        world reset in that order, when given) and the others stepped (none without `controls`)."""
        for world, data in enumerate(self.data):
            if world in resets:
                mujoco.mj_resetData(self.model, data)
                k = resets.index(world)
                if qpos is not None:
                    data.qpos[0] = qpos[k]
                if qvel is not None:
                    data.qvel[0] = qvel[k]
                mujoco.mj_forward(self.model, data)
                continue
            if controls is None:
                continue
            data.ctrl[:] = controls[world]
            mujoco.mj_step(self.model, data, nstep=max(steps, 1))
        return np.array([[d.qpos[0], d.qvel[0]] for d in self.data])

    def times(self) -> list[float]:
        return [d.time for d in self.data]
