"""A robot or object whose root is an unnamed wrapper body is served, named after the first named body below it."""

from __future__ import annotations

import mujoco
import numpy as np

from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation
from coupler.wire.messages import ControlMessage, ObjectControl, ValueType

# An arm placed by a wrapper body without a name (as Franka kitchen places its arm), and a free lock whose
# wrapper carries the free joint (as robosuite's door_lock object does).
_WRAPPED = """
<mujoco>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body pos="0 0 0.8">
      <body pos="0 0 0.02">
        <geom type="box" size="0.05 0.05 0.02"/>
        <body name="arm_base">
          <geom type="cylinder" size="0.05 0.02"/>
          <body name="upper">
            <joint name="shoulder" axis="0 1 0"/>
            <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02"/>
            <body name="lower" pos="0 0 0.3">
              <joint name="elbow" axis="0 1 0"/>
              <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.02"/>
            </body>
          </body>
        </body>
      </body>
    </body>
    <body pos="0.5 0 0.3">
      <freejoint/>
      <geom type="box" size="0.05 0.05 0.05"/>
      <body name="lock_latch" pos="0 0 0.05">
        <joint name="latch" axis="1 0 0"/>
        <geom type="box" size="0.01 0.04 0.01"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="shoulder_motor" joint="shoulder" gear="30"/>
    <position name="elbow_servo" joint="elbow" kp="20"/>
  </actuator>
</mujoco>
"""


def _model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(_WRAPPED)


def test_a_robot_in_an_unnamed_wrapper_is_named_after_its_first_named_body() -> None:
    layout = scene_layout(_model())
    assert layout.unmapped == []
    arm = layout.handshake.objects["arm_base"]
    assert arm.controls == ["shoulder_motor", "elbow_servo"]
    assert arm.joint_sensors == ["shoulder", "elbow"]


def test_an_object_in_an_unnamed_wrapper_is_named_after_its_first_named_body() -> None:
    lock = scene_layout(_model()).handshake.objects["lock_latch"]
    assert lock.object_sensors == [ValueType.POSITION, ValueType.RPY, ValueType.VELOCITY_3D,
                                   ValueType.ANGULAR_VELOCITY_3D]
    assert lock.joint_sensors == ["latch"]


def test_a_wrapped_robot_reports_the_position_of_its_root_the_wrapper() -> None:
    model = _model()
    sim = MujocoSimulation(model)
    assert list(sim.sensors().objects["arm_base"].object_sensors[0].value) == [0.0, 0.0, 0.8]


def test_a_wrapped_robot_steps_as_mj_step_bit_for_bit() -> None:
    model = _model()
    sim = MujocoSimulation(model)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    rng = np.random.default_rng(1)
    for _ in range(100):
        torque, angle = rng.uniform(-5.0, 5.0), rng.uniform(-1.0, 1.0)
        sim.apply(ControlMessage(objects={"arm_base": ObjectControl(values=[torque, angle])}))
        sim.step()
        data.ctrl[:] = [torque / 30.0, angle]
        mujoco.mj_step(model, data)
    for field in ("qpos", "qvel", "ctrl"):
        np.testing.assert_array_equal(getattr(sim.data, field), getattr(data, field), err_msg=field)


def test_a_wrapper_with_no_named_body_below_it_is_still_refused_by_number() -> None:
    model = mujoco.MjModel.from_xml_string(
        "<mujoco><worldbody><body><body><joint name='j'/><geom size='0.1'/></body></body></worldbody>"
        "<actuator><motor name='m' joint='j'/></actuator></mujoco>")
    layout = scene_layout(model)
    assert layout.handshake.objects == {}
    assert layout.unmapped == ["unnamed body #1 is the root of a robot, with actuator 'm', and no body of it has a "
                               "name: not served"]
