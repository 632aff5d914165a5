"""Every actuator kind is a control with the value type that fits what it moves: linear servos in
m and m/s, and tendon, site, slider-crank, body and muscle actuators in their own ctrl units."""

from __future__ import annotations

from pathlib import Path

import mujoco
import pytest

from coupler.wire.messages import ControlMessage, ObjectControl, Range, ValueType
from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation

MODELS = Path(__file__).parent / "models"
V = ValueType


def _sim(name: str) -> MujocoSimulation:
    return MujocoSimulation(MODELS / f"{name}.xml")


def _controls(name: str, obj: str) -> list[tuple[str, ValueType, str]]:
    described = scene_layout(mujoco.MjModel.from_xml_path(str(MODELS / f"{name}.xml"))).handshake.objects[obj]
    return list(zip(described.controls, described.control_types, described.control_targets))


def _ctrl(sim: MujocoSimulation, actuator: str) -> float:
    return float(sim.data.actuator(actuator).ctrl[0])


def _hold(sim: MujocoSimulation, obj: str, values: list[float], steps: int) -> None:
    for _ in range(steps):
        sim.apply(ControlMessage(objects={obj: ObjectControl(values=values)}))
        sim.step()


def test_servos_and_motors_on_slide_joints_take_linear_values() -> None:
    assert _controls("slide_cart", "cart") == [("cart_position", V.LINEAR_POSITION, "rail")]
    assert _controls("slide_cart", "shuttle") == [("shuttle_speed", V.LINEAR_VELOCITY, "track"),
                                                   ("lift_force", V.FORCE_1D, "lift_slide")]


def test_a_linear_position_control_moves_its_slide_to_the_position_in_metres() -> None:
    sim = _sim("slide_cart")
    _hold(sim, "cart", [-0.4], 2000)
    assert sim.sensors().objects["cart"].angles[0] == pytest.approx(-0.4, abs=1e-3)


def test_a_linear_velocity_control_is_the_slide_speed_in_metres_per_second_whatever_the_gear() -> None:
    sim = _sim("slide_cart")
    _hold(sim, "shuttle", [0.2, 0.0], 500)  # gear 2: the actuator's velocity is 0.4
    assert _ctrl(sim, "shuttle_speed") == pytest.approx(0.4)
    assert sim.sensors().objects["shuttle"].angular_velocities[0] == pytest.approx(0.2, abs=1e-3)


def test_a_slide_joints_jointpos_and_jointvel_sensors_are_linear_readings() -> None:
    sim = _sim("slide_cart")
    sensors = sim.sensors().objects["cart"].sensors
    assert [s.type for s in sensors["rail_position"]] == [V.LINEAR_POSITION]
    assert [s.type for s in sensors["rail_speed"]] == [V.LINEAR_VELOCITY]
    assert sensors["rail_position"][0].value == (pytest.approx(0.3),)


def test_a_linear_position_range_is_the_ctrlrange_in_metres() -> None:
    described = scene_layout(mujoco.MjModel.from_xml_path(str(MODELS / "slide_cart.xml"))).handshake.objects["cart"]
    assert described.control_ranges == [Range(-1.0, 1.0, True)]


def test_tendon_actuators_are_actuator_inputs_naming_their_tendons() -> None:
    controls = _controls("tendon_legs", "walker")
    assert len(controls) == 8
    assert all(value_type == V.ACTUATOR_INPUT for _, value_type, _ in controls)
    assert [target for _, _, target in controls] == [
        "lift_fl", "lift_fr", "lift_hl", "lift_hr", "extend_fl", "extend_fr", "extend_hl", "extend_hr"]


def test_an_actuator_input_is_the_actuators_own_ctrl_whatever_the_gear() -> None:
    sim = _sim("tendon_legs")  # lift_* have gear 10
    _hold(sim, "walker", [0.5, 0, 0, 0, 0.2, 0.2, 0.2, 0.2], 1)
    assert _ctrl(sim, "lift_fl") == 0.5
    assert _ctrl(sim, "extend_fl") == 0.2


def test_an_actuator_input_range_is_the_ctrlrange() -> None:
    described = scene_layout(mujoco.MjModel.from_xml_path(str(MODELS / "tendon_legs.xml"))).handshake.objects["walker"]
    assert described.control_ranges[4] == Range(0.15, 0.3, True)


def test_a_tendon_gripper_closes_both_fingers_through_its_tendon() -> None:
    sim = _sim("tendon_gripper")
    assert _controls("tendon_gripper", "gripper")[0] == ("grip", V.ACTUATOR_INPUT, "grip")
    _hold(sim, "gripper", [0.02, 0.0], 1500)  # the tendon's length: the mean of the fingers' slides
    joints = sim.handshake().objects["gripper"].joint_sensors
    angles = dict(zip(joints, sim.sensors().objects["gripper"].angles))
    assert angles["finger_left"] == pytest.approx(0.02, abs=1e-4)
    assert angles["finger_right"] == pytest.approx(0.02, abs=1e-4)


def test_site_thrusters_are_actuator_inputs_naming_their_sites_and_lift_the_drone() -> None:
    assert _controls("thrusters", "drone")[:4] == [(f"thrust_{k}", V.ACTUATOR_INPUT, f"rotor_{k}") for k in range(1, 5)]
    sim = _sim("thrusters")
    start = sim.sensors().objects["drone"].object_sensors[0].value[2]
    _hold(sim, "drone", [4.0, 4.0, 4.0, 4.0, 0.0], 250)
    assert sim.sensors().objects["drone"].object_sensors[0].value[2] > start + 0.1


@pytest.mark.parametrize(("obj", "control", "expected"), [
    ("drone", "flap_torque", (V.TORQUE_1D, "flap")),  # joint in parent: a joint transmission still
    ("press", "press_drive", (V.ACTUATOR_INPUT, "crank_pin")),  # slider-crank: its crank site
    ("pad", "suction", (V.ACTUATOR_INPUT, "pad")),  # adhesion: its body
])
def test_other_transmissions_are_served_naming_what_they_drive(obj: str, control: str,
                                                                  expected: tuple[ValueType, str]) -> None:
    by_name = {name: (value_type, target) for name, value_type, target in _controls("thrusters", obj)}
    assert by_name[control] == expected


@pytest.mark.parametrize(("control", "expected"), [
    ("biceps", (V.ACTUATOR_INPUT, "biceps_path")),  # muscle on a spatial tendon
    ("wrist_flexor", (V.ACTUATOR_INPUT, "wrist")),  # muscle on a joint
    ("shoulder_filtered", (V.TORQUE_1D, "shoulder")),  # a motor behind a first-order filter
    ("finger_integrated", (V.ACTUATOR_INPUT, "finger")),  # integrator dynamics without a servo's bias
    ("tip_speed", (V.ANGULAR_VELOCITY_1D, "tip")),  # intvelocity
])
def test_actuators_with_activation_dynamics_are_served(control: str, expected: tuple[ValueType, str]) -> None:
    by_name = {name: (value_type, target) for name, value_type, target in _controls("muscles", "shoulder_mount")}
    assert by_name[control] == expected


def test_a_muscles_control_range_is_its_ctrlrange_of_excitation() -> None:
    described = scene_layout(mujoco.MjModel.from_xml_path(str(MODELS / "muscles.xml"))).handshake.objects
    assert described["shoulder_mount"].control_ranges[0] == Range(0.0, 1.0, True)


def test_an_actuator_acting_on_two_robots_is_refused_naming_both() -> None:
    xml = """<mujoco><worldbody>
      <body name="a"><joint name="ja"/><geom size="0.1"/></body>
      <body name="b" pos="1 0 0"><joint name="jb"/><geom size="0.1"/></body></worldbody>
      <tendon><fixed name="both"><joint joint="ja" coef="1"/><joint joint="jb" coef="1"/></fixed></tendon>
      <actuator><motor name="across" tendon="both"/></actuator></mujoco>"""
    layout = scene_layout(mujoco.MjModel.from_xml_string(xml))
    assert layout.unmapped == ["actuator 'across' acts on body 'a', body 'b', not within one robot: not served"]
