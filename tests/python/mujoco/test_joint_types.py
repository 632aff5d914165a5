"""Units a coupler client is told: a slide joint's readings are linear, and what an ActuatorInput value goes through."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from coupler.cli.info import describe
from coupler.controller.sensor_readings import SensorReadings
from coupler.mujoco.simulation import MujocoSimulation
from coupler.wire.codec import decode, encode
from coupler.wire.messages import ControlMessage, HandshakeMessage, ObjectControl, ValueType

V = ValueType

# A cart on a rail with a hinged pole; the cart driven by a general actuator with a gain and an affine bias (no
# servo's), the pole by a motor.
_CART = """
<mujoco>
  <worldbody>
    <body name="cart">
      <joint name="rail" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="pole">
        <joint name="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.02"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general name="push" joint="rail" gainprm="10" biastype="affine" biasprm="2 -5 0"/>
    <motor name="twist" joint="hinge"/>
  </actuator>
</mujoco>
"""


@pytest.fixture
def cart() -> MujocoSimulation:
    return MujocoSimulation.from_xml_string(_CART)


def _as_a_client_reads_it(sim: MujocoSimulation) -> HandshakeMessage:
    return decode(encode(sim.handshake()))


def test_a_slide_joint_is_typed_linear_for_coupler_clients(cart: MujocoSimulation) -> None:
    handshake = _as_a_client_reads_it(cart)
    readings = SensorReadings(handshake, cart.sensors())
    assert readings.joint_types("cart", "rail") == [V.LINEAR_POSITION, V.LINEAR_VELOCITY, V.FORCE_1D]
    assert readings.joint_types("cart", "hinge") == [V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D]


def test_click_peers_keep_seeing_the_click_joint_types(cart: MujocoSimulation) -> None:
    handshake = _as_a_client_reads_it(cart)
    assert handshake.objects["cart"].joint_sensor_types == [V.ANGLE, V.ANGULAR_VELOCITY_1D, V.TORQUE_1D]


def test_a_slide_joints_readings_are_metres_metres_per_second_and_newtons(cart: MujocoSimulation) -> None:
    cart.apply(ControlMessage(objects={"cart": ObjectControl(values=[0.7, 0.0])}))
    cart.step(20)
    readings = SensorReadings(_as_a_client_reads_it(cart), cart.sensors())
    rail = mujoco.mj_name2id(cart.model, mujoco.mjtObj.mjOBJ_JOINT, "rail")
    assert readings.angle("cart", "rail") == cart.data.qpos[cart.model.jnt_qposadr[rail]]
    assert readings.angular_velocity("cart", "rail") == cart.data.qvel[cart.model.jnt_dofadr[rail]]
    assert readings.torque("cart", "rail") == cart.data.qfrc_actuator[cart.model.jnt_dofadr[rail]]


def test_an_actuator_input_says_what_its_value_goes_through(cart: MujocoSimulation) -> None:
    described = _as_a_client_reads_it(cart).objects["cart"]
    assert described.control_types == [V.ACTUATOR_INPUT, V.TORQUE_1D]
    assert described.control_meanings == ["force = 10 * ctrl + 2 - 5 * length", ""]


def test_the_told_meaning_is_the_force_mujoco_applies(cart: MujocoSimulation) -> None:
    cart.data.qpos[0] = 0.3
    mujoco.mj_forward(cart.model, cart.data)
    cart.apply(ControlMessage(objects={"cart": ObjectControl(values=[0.7, 0.0])}))
    cart.sensors()  # the forces of the current state and controls
    length = float(cart.data.actuator_length[0])
    assert cart.data.actuator_force[0] == pytest.approx(10 * 0.7 + 2 - 5 * length, abs=1e-12)
    assert np.isclose(length, 0.3)


def test_coupler_info_shows_the_meaning_and_the_linear_joint_types(cart: MujocoSimulation) -> None:
    shown = describe(_as_a_client_reads_it(cart))
    assert "force = 10 * ctrl + 2 - 5 * length" in shown
    assert "LINEAR_POSITION, LINEAR_VELOCITY, FORCE_1D" in shown
