"""A motor's ctrl is value / gear and a servo's value * gear, exactly: served runs equal mj_step with that mapping,
bit for bit, on values where value * (1 / gear) differs from value / gear in the last bit."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from coupler.controller.session import Session
from coupler.controller.world_session import WorldSession
from coupler.mujoco.flat import sensor_gather
from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation
from coupler.wire.errors import ProtocolError
from coupler.wire.flat_layout import FlatLayout
from coupler.wire.messages import HandshakeMessage, ValueType
from peers import coupler_server, free_tcp_address

# A planar hopper falling onto the floor and kicking it: motors with gears from 7 to 150 on hinges and a slide, and
# a position servo, so that contacts amplify any difference in the last bit of a control.
_HOPPER = """
<mujoco>
  <option timestep="0.004"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="hopper" pos="0 0 0.5">
      <joint name="rootx" type="slide" axis="1 0 0"/>
      <joint name="rootz" type="slide" axis="0 0 1"/>
      <joint name="pitch" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.05"/>
      <body name="thigh">
        <joint name="hip" type="hinge" axis="0 1 0" range="-1.5 1.5"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04"/>
        <body name="shin" pos="0 0 -0.3">
          <joint name="knee" type="hinge" axis="0 1 0" range="-2 0.2"/>
          <geom type="capsule" fromto="0 0 0 0.05 0 -0.25" size="0.04"/>
          <body name="foot" pos="0.05 0 -0.25">
            <joint name="ankle" type="hinge" axis="0 1 0" range="-0.8 0.8"/>
            <geom type="capsule" fromto="-0.1 0 0 0.15 0 0" size="0.04"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="hip_motor" joint="hip" gear="30" ctrlrange="-1 1"/>
    <motor name="knee_motor" joint="knee" gear="49" ctrlrange="-1 1"/>
    <motor name="ankle_motor" joint="ankle" gear="150" ctrlrange="-0.2 0.2"/>
    <motor name="lift_motor" joint="rootz" gear="7" ctrlrange="-3 3"/>
    <position name="pitch_servo" joint="pitch" gear="7" kp="5" ctrlrange="-1 1"/>
  </actuator>
</mujoco>
"""
_STEPS = 150
_WORLDS = 2


@pytest.fixture(scope="module")
def hopper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gear") / "hopper.xml"
    path.write_text(_HOPPER)
    return path


def _model() -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(_HOPPER)


def _gears(model: mujoco.MjModel) -> np.ndarray:
    return model.actuator_gear[:, 0].copy()


def _is_motor(handshake: HandshakeMessage) -> np.ndarray:
    types = handshake.objects["hopper"].control_types
    return np.array([t in (ValueType.TORQUE_1D, ValueType.FORCE_1D) for t in types])


def _values(rng: np.random.Generator, model: mujoco.MjModel, is_motor: np.ndarray) -> np.ndarray:
    """One value per actuator inside its range; for a motor, one whose product with 1 / gear is not its quotient."""
    values = []
    for a, gear in enumerate(_gears(model)):
        low, high = model.actuator_ctrlrange[a]
        if not is_motor[a]:
            values.append(rng.uniform(low, high) / gear)
            continue
        candidates = rng.uniform(low, high, size=64) * gear
        differing = candidates[candidates * (1.0 / gear) != candidates / gear]
        values.append(differing[0])
    return np.array(values)


def _documented_ctrl(values: np.ndarray, gears: np.ndarray, is_motor: np.ndarray) -> np.ndarray:
    """docs/models.md's mapping: a motor's ctrl = value / gear, a servo's ctrl = value * gear."""
    return np.where(is_motor, values / gears, values * gears)


class _Reference:
    """The model stepped by mj_step with the documented ctrl, read in the served readings' order."""

    def __init__(self, model: mujoco.MjModel, handshake: HandshakeMessage) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        mujoco.mj_forward(model, self.data)
        self.readings = np.zeros(FlatLayout(handshake).sensors.values.size)
        self._gather = sensor_gather(scene_layout(model), FlatLayout(handshake), self.data)
        self.contacts = 0

    def step(self, ctrl: np.ndarray) -> np.ndarray:
        self.data.ctrl[:] = ctrl
        mujoco.mj_step(self.model, self.data)
        mujoco.mj_forward(self.model, self.data)  # the served readings belong to the state after the step
        self.contacts += self.data.ncon
        self._gather.gather(self.readings)
        return self.readings


def test_the_values_differ_from_their_products_with_the_reciprocal_gear() -> None:
    model = _model()
    sim = MujocoSimulation(model)
    is_motor = _is_motor(sim.handshake())
    values = _values(np.random.default_rng(3), model, is_motor)
    gears = _gears(model)
    assert is_motor.sum() == 4
    assert np.all((values * (1.0 / gears) != values / gears)[is_motor])


def test_a_simulation_writes_a_motors_value_divided_by_its_gear_and_a_servos_multiplied() -> None:
    model = _model()
    sim = MujocoSimulation(model)
    flat = sim.flat.controls
    is_motor = _is_motor(sim.handshake())
    rng = np.random.default_rng(5)
    for _ in range(20):
        values = _values(rng, model, is_motor)
        sim.apply_values(values, np.ones(len(flat.objects), dtype=bool), np.zeros(0, dtype=bool),
                         np.zeros(0, dtype=bool))
        np.testing.assert_array_equal(sim.data.ctrl, _documented_ctrl(values, _gears(model), is_motor))


def test_a_served_scene_steps_as_mj_step_with_ctrl_value_over_gear_bit_for_bit(hopper: Path) -> None:
    model = _model()
    address = free_tcp_address()
    rng = np.random.default_rng(7)
    with coupler_server(address, "--scene", str(hopper)), Session(address, reset=True) as session:
        reference = _Reference(model, session.handshake)
        is_motor = _is_motor(session.handshake)
        controls = session.controls()
        for step in range(_STEPS):
            controls["hopper"][:] = _values(rng, model, is_motor)
            served = session.step(controls)
            expected = reference.step(_documented_ctrl(controls["hopper"], _gears(model), is_motor))
            np.testing.assert_array_equal(served.values, expected, err_msg=f"step {step}")
    assert reference.contacts > 0


def test_batched_worlds_step_as_mj_step_with_ctrl_value_over_gear_bit_for_bit(hopper: Path) -> None:
    model = _model()
    address = free_tcp_address()
    rng = np.random.default_rng(9)
    with (coupler_server(address, "--scene", str(hopper), "--worlds", str(_WORLDS)),
          Session(address, reset=True) as session):
        worlds = WorldSession(session)
        references = [_Reference(model, session.handshake) for _ in range(_WORLDS)]
        is_motor = _is_motor(session.handshake)
        for step in range(_STEPS):
            values = np.array([_values(rng, model, is_motor) for _ in range(_WORLDS)])
            worlds.send(values)
            served, _ = worlds.receive()
            for world, reference in enumerate(references):
                expected = reference.step(_documented_ctrl(values[world], _gears(model), is_motor))
                np.testing.assert_array_equal(served[world], expected, err_msg=f"world {world}, step {step}")
    assert all(reference.contacts > 0 for reference in references)


def test_a_negative_gear_refuses_only_values_beyond_what_mujoco_accepts_naming_that_positive_limit() -> None:
    sim = MujocoSimulation.from_xml_string(_HOPPER.replace('gear="49"', 'gear="-49"'))
    every = np.ones(1, dtype=bool)
    no_events = np.zeros(0, dtype=bool)
    values = np.zeros(sim.flat.controls.values.size)
    values[1] = 1e11  # ctrl 1e11 / -49, inside MuJoCo's 1e10
    sim.apply_values(values, every, no_events, no_events)
    assert sim.data.ctrl[1] == 1e11 / -49.0
    values[1] = 1e12
    with pytest.raises(ProtocolError, match=r"'knee_motor' of object 'hopper' is 1e\+12, beyond the 4.9e\+11 MuJoCo"):
        sim.apply_values(values, every, no_events, no_events)
