"""Two pendulums, each driven by a motor, for the tests of Controls the hot path reads and applies: torques in N m
at the joint, the heavy one's geared (ctrl = torque / 1000) and its ctrl clamped to [-2, 2]."""

PENDULUMS = """
<mujoco model="pendulums">
  <worldbody>
    <body name="light" pos="0 0 1">
      <joint name="light" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
    </body>
    <body name="heavy" pos="0 0.5 1">
      <joint name="heavy" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="light" joint="light"/>
    <motor name="heavy" joint="heavy" gear="1000" ctrlrange="-2 2"/>
  </actuator>
</mujoco>
"""
# Each motor's gear: a torque sent is its ctrl times this.
GEAR = {"light": 1.0, "heavy": 1000.0}
