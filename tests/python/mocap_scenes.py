"""Small scenes with a mocap body, for the tests of mocap poses."""

# A two-link arm whose hand a mocap body pulls along through a weld, and a motor on the wrist.

MOCAP_ARM = """
<mujoco>
  <option timestep="0.005"/>
  <worldbody>
    <body name="target" mocap="true" pos="0.3 0 0.5"><geom size="0.01" contype="0" conaffinity="0"/></body>
    <body name="arm" pos="0 0 0.5">
      <joint name="shoulder" axis="0 1 0" damping="0.5"/>
      <joint name="twist" axis="1 0 0" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="hand" pos="0.3 0 0">
        <joint name="wrist" axis="0 1 0" damping="0.5"/>
        <geom size="0.04"/>
      </body>
    </body>
  </worldbody>
  <equality><weld body1="target" body2="hand" solref="0.05 1"/></equality>
  <actuator><motor name="wrist" joint="wrist" ctrlrange="-1 1"/></actuator>
</mujoco>
"""

# A pendulum whose tip a mocap body pulls along through a weld, and a motor at its hinge.
MOCAP_PENDULUM = """
<mujoco>
  <worldbody>
    <body name="target" mocap="true" pos="0.3 0 0.5"><geom size="0.01" contype="0" conaffinity="0"/></body>
    <body name="pendulum" pos="0 0 0.5">
      <joint name="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
    </body>
  </worldbody>
  <equality><weld body1="target" body2="pendulum" solref="0.05 1"/></equality>
  <actuator><motor name="hinge" joint="hinge"/></actuator>
</mujoco>
"""
