"""A scene's pose rebuilt from its served readings (what coupler.gym draws) is the pose MuJoCo simulated."""

import mujoco
import numpy as np

from coupler.mujoco.readings_pose import ReadingsPose
from coupler.mujoco.simulation import MujocoSimulation

# Every kind of pose the readings carry: hinges and a slide, a free body, a ball joint, a mocap body.
POSES = """
<mujoco>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="lift" type="slide" axis="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <body name="upper" pos="0 0 0.2">
        <joint name="shoulder" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="wrist" pos="0.3 0 0">
          <joint name="wrist" type="ball"/>
          <geom type="box" size="0.05 0.02 0.01" pos="0.05 0 0"/>
        </body>
      </body>
    </body>
    <body name="box" pos="0.5 0 0.2">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05"/>
    </body>
    <body name="target" mocap="true" pos="0 0.5 0.5">
      <geom type="sphere" size="0.02" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="lift"/>
    <motor joint="shoulder"/>
  </actuator>
</mujoco>
"""


def _unit(q):
    return np.asarray(q) / np.linalg.norm(q)


def test_the_pose_rebuilt_from_the_readings_is_the_simulated_one():
    simulation = MujocoSimulation(mujoco.MjModel.from_xml_string(POSES))
    model, data = simulation.model, simulation.data
    data.qpos[:] = [0.12, -0.7, *_unit([0.8, 0.3, -0.2, 0.4]), 0.4, -0.1, 0.3, *_unit([0.2, -0.5, 0.7, 0.1])]
    data.mocap_pos[0] = [0.1, 0.6, 0.4]
    data.mocap_quat[0] = _unit([0.9, 0.1, 0.3, -0.2])
    mujoco.mj_forward(model, data)
    readings = np.zeros(simulation.flat.sensors.values.size)
    simulation.sensor_values(readings)

    rebuilt = mujoco.MjData(model)
    ReadingsPose(model, simulation.layout, simulation.flat).apply(readings, rebuilt)
    np.testing.assert_array_equal(rebuilt.qpos[[0, 1, 6, 7, 8]], data.qpos[[0, 1, 6, 7, 8]])  # slide, hinge, box
    np.testing.assert_array_equal(rebuilt.mocap_pos, data.mocap_pos)
    np.testing.assert_allclose(rebuilt.xpos, data.xpos, atol=1e-12)
    np.testing.assert_allclose(rebuilt.xmat, data.xmat, atol=1e-12)
