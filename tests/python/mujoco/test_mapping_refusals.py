"""The mapping rules no shipped model exercises: each part a controller could not use is left out with one line
naming it and why, the rest served; actuators of any other gain, bias or dynamics are their own ctrl (ACTUATOR_INPUT)
with a meaning that says what it goes through, and step as MuJoCo steps the same ctrl."""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.wire.messages import ControlMessage, ObjectControl, ValueType  # noqa: E402

_MODEL = """
<mujoco>
  <worldbody>
    <body pos="0 -1 0">
      <joint/>
      <geom size="0.1"/>
      <site name="loose_site"/>
    </body>
    <body name="bot">
      <joint name="hinge" damping="0.5"/>
      <joint name="tilt" axis="1 0 0" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <site name="imu"/>
    </body>
  </worldbody>
  <tendon><fixed name="both"><joint joint="hinge" coef="1"/><joint joint="tilt" coef="1"/></fixed></tendon>
  <actuator>
    <motor joint="hinge" group="5" ctrlrange="0 1"/>
    <motor name="hinge" joint="tilt"/>
    <motor joint="hinge"/>
    <motor tendon="both"/>
    <general name="no_gain" joint="hinge" gainprm="0"/>
    <general name="muscle_bias" joint="hinge" biastype="muscle" lengthrange="-1 1"
             biasprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"/>
    <general name="offset_servo" joint="tilt" biastype="affine" gainprm="5" biasprm="1 -5 0"/>
    <general name="stiff_and_damped" joint="tilt" biastype="affine" gainprm="5" biasprm="0 -2 -3"/>
  </actuator>
  <sensor>
    <accelerometer site="imu"/>
    <accelerometer site="imu"/>
    <velocimeter site="loose_site"/>
  </sensor>
</mujoco>
"""


@pytest.fixture(scope="module")
def simulation() -> MujocoSimulation:
    return MujocoSimulation.from_xml_string(_MODEL)


@pytest.mark.parametrize("line", [
    "unnamed actuator #0 is in the event group but has no name: not served",
    "unnamed actuator #2: a control named 'hinge' already exists in 'bot'",
    "unnamed actuator #3 on tendon 'both': a control needs a name",
    "unnamed sensor #1: sensor 'imu' of 'bot' already has a reading of type ACCELERATION_3D",
    "unnamed sensor #2 is on unnamed body #1, which is not served",
])
def test_a_part_no_controller_could_use_is_left_out_in_one_line_naming_why(simulation, line) -> None:
    assert line in simulation.unmapped


def test_the_first_of_two_controls_of_one_name_is_served_and_the_others_left_out(simulation) -> None:
    bot = simulation.handshake().objects["bot"]
    assert bot.controls == ["hinge", "no_gain", "muscle_bias", "offset_servo", "stiff_and_damped"]
    # The actuator named 'hinge' drives tilt; the unnamed motor on the joint hinge, named after it, comes later.
    assert bot.control_targets[0] == "tilt"
    assert dict(bot.sensors) == {"imu": [ValueType.ACCELERATION_3D]}


def test_actuators_of_other_gains_biases_and_servos_are_their_own_ctrl_saying_what_it_goes_through(simulation):
    bot = simulation.handshake().objects["bot"]
    assert bot.control_types[1:] == [ValueType.ACTUATOR_INPUT] * 4
    assert bot.control_meanings[1:] == [
        "force = 0 * ctrl",
        "ctrl through mjGAIN_FIXED, mjBIAS_MUSCLE, mjDYN_NONE",
        "force = 5 * ctrl + 1 - 5 * length",
        "force = 5 * ctrl - 2 * length - 3 * velocity",
    ]


def test_they_step_as_mujoco_steps_the_same_ctrl_bit_for_bit() -> None:
    served = MujocoSimulation.from_xml_string(_MODEL)
    model = mujoco.MjModel.from_xml_string(_MODEL)
    data = mujoco.MjData(model)
    values = [0.3, 0.7, -0.4, 0.2, 0.6]  # tilt's torque (gear 1), then the four inputs, each its actuator's ctrl
    for name, value in zip(["hinge", "no_gain", "muscle_bias", "offset_servo", "stiff_and_damped"], values):
        data.actuator(name).ctrl[0] = value
    for _ in range(50):
        served.apply(ControlMessage(objects={"bot": ObjectControl(values=values)}))
        served.step()
        mujoco.mj_step(model, data)
    np.testing.assert_array_equal(served.data.qpos, data.qpos)
    np.testing.assert_array_equal(served.data.qvel, data.qvel)
    np.testing.assert_array_equal(served.data.ctrl, data.ctrl)
