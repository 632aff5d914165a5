"""A hull on a leg that falls onto the floor: contacts, a free joint, a motor and a servo (whose force depends on the
state). Its readings are body poses, velocities, joint readings and actuator forces, none of them a MuJoCo sensor, so a
server settles it by the first stages of mj_forward alone (coupler.mujoco.readings_stages)."""

from __future__ import annotations

_WALKER = """
<mujoco>
  <option timestep="0.005" integrator="{integrator}">{flags}</option>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body name="hull" pos="0 0 0.4">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="leg" pos="0.15 0 -0.05">
        <joint name="hip" type="hinge" axis="0 1 0" range="-60 60" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="hip_motor" joint="hip" gear="40" ctrlrange="-1 1"/>
    <position name="hip_servo" joint="hip" kp="30" ctrlrange="-1 1"/>
  </actuator>
</mujoco>
"""


def walker(integrator: str, flags: str = "") -> str:
    """The walker's MJCF with MuJoCo's `integrator` and `flags` (a <flag .../> element, or none)."""
    return _WALKER.format(integrator=integrator, flags=flags)
