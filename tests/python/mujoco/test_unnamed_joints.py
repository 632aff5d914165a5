"""An unnamed joint takes its body's name, so an object such as a door on an unnamed hinge is served whole."""

from __future__ import annotations

import mujoco
import numpy as np

from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation
from coupler.wire.messages import ControlMessage, ObjectControl, Range

# A door on an unnamed limited hinge (as Meta-World hangs its doors and lids), a lid with two unnamed joints,
# and an arm that pushes them about.
_UNNAMED = """
<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body name="door" pos="0.45 0 0.5">
      <joint axis="0 0 1" range="-1.5 0" limited="true" damping="0.1"/>
      <geom type="box" size="0.2 0.02 0.4" pos="0.2 0 0"/>
    </body>
    <body name="lid" pos="-0.45 0 0.5">
      <joint axis="0 1 0" damping="0.1"/>
      <joint type="slide" axis="0 0 1" range="-0.1 0.1" limited="true"/>
      <geom type="box" size="0.1 0.1 0.01"/>
    </body>
    <body name="arm_base" pos="0 0 0.2">
      <body name="upper">
        <joint name="shoulder" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02"/>
        <body name="forearm" pos="0 0 0.3">
          <joint name="elbow" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="shoulder_motor" joint="shoulder" gear="30"/>
    <motor name="elbow_motor" joint="elbow" gear="7"/>
  </actuator>
</mujoco>
"""


def _model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(_UNNAMED)


def test_an_unnamed_joint_takes_its_bodys_name():
    layout = scene_layout(_model())
    assert layout.unmapped == []
    assert layout.handshake.objects["door"].joint_sensors == ["door"]


def test_the_unnamed_joints_of_one_body_take_its_name_and_their_place_among_its_joints():
    assert scene_layout(_model()).handshake.objects["lid"].joint_sensors == ["lid_0", "lid_1"]


def test_an_unnamed_joint_keeps_its_limits():
    objects = scene_layout(_model()).handshake.objects
    assert objects["door"].joint_limits == [Range(-1.5, 0.0, True)]
    assert objects["lid"].joint_limits == [Range(0.0, 0.0, False), Range(-0.1, 0.1, True)]


def test_a_body_named_like_another_joint_leaves_its_unnamed_joint_unserved_and_says_so():
    model = mujoco.MjModel.from_xml_string(_UNNAMED.replace('name="shoulder"', 'name="door"').replace(
        'joint="shoulder"', 'joint="door"'))
    layout = scene_layout(model)
    assert layout.handshake.objects["door"].joint_sensors == []
    assert any("of 'door' needs a name for its joint sensors" in line for line in layout.unmapped)


def test_a_scene_with_unnamed_joints_reads_and_steps_as_mj_step_bit_for_bit():
    model = _model()
    sim = MujocoSimulation(model)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    rng = np.random.default_rng(5)
    for _ in range(200):
        values = rng.uniform(-20.0, 20.0, 2)
        sim.apply(ControlMessage(objects={"arm_base": ObjectControl(values=list(values))}))
        sim.step()
        data.ctrl[:] = [values[0] / 30.0, values[1] / 7.0]
        mujoco.mj_step(model, data)
    for field in ("qpos", "qvel"):
        np.testing.assert_array_equal(getattr(sim.data, field), getattr(data, field), err_msg=field)
    readings = sim.sensors().objects
    door = model.joint(0)
    assert readings["door"].angles == [data.qpos[door.qposadr[0]]]
    assert readings["lid"].angles == [data.qpos[model.joint(1).qposadr[0]], data.qpos[model.joint(2).qposadr[0]]]
