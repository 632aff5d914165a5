"""The handshake's control ranges and joint limits (the "ranges" extension) follow the model."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation
from coupler.scenes import SCENES_DIR
from coupler.wire.messages import ControlMessage, ObjectControl, Range, ValueType

_ROBOT = """
<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="robot">
      <joint name="hinge" type="hinge" range="-1 2" limited="true"/>
      <geom size="0.1"/>
      <body name="link">
        <joint name="free_hinge" type="hinge"/>
        <geom size="0.1"/>
        <body name="carriage">
          <joint name="slide" type="slide" range="0 0.3" limited="true"/>
          <geom size="0.1"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    {actuators}
  </actuator>
</mujoco>
"""


def _ranges(actuators: str) -> tuple[list[Range], list[Range]]:
    model = mujoco.MjModel.from_xml_string(_ROBOT.format(actuators=actuators))
    described = scene_layout(model).handshake.objects["robot"]
    return described.control_ranges, described.joint_limits


def test_a_motor_range_is_the_ctrlrange_times_the_gear() -> None:
    controls, _ = _ranges('<motor name="m" joint="hinge" gear="2" ctrlrange="-1 3" ctrllimited="true"/>')
    assert controls == [Range(-2.0, 6.0, True)]


def test_a_servo_range_is_the_ctrlrange_over_the_gear() -> None:
    controls, _ = _ranges('<position name="p" joint="hinge" gear="2" kp="10" ctrlrange="-1 3" ctrllimited="true"/>')
    assert controls == [Range(-0.5, 1.5, True)]


def test_a_negative_gear_keeps_min_below_max() -> None:
    controls, _ = _ranges('<motor name="m" joint="hinge" gear="-2" ctrlrange="-1 3" ctrllimited="true"/>')
    assert controls == [Range(-6.0, 2.0, True)]


def test_an_actuator_without_ctrlrange_has_an_unlimited_range() -> None:
    controls, _ = _ranges('<motor name="m" joint="hinge" ctrllimited="false"/>')
    assert controls == [Range()]


def test_joint_limits_are_the_limited_joints_ranges_and_unlimited_otherwise() -> None:
    _, joints = _ranges('<motor name="m" joint="hinge"/>')
    assert joints == [Range(-1.0, 2.0, True), Range(), Range(0.0, 0.3, True)]


def test_there_is_one_range_per_control_and_one_limit_per_joint_sensor_in_every_scene() -> None:
    for path in sorted(SCENES_DIR.glob("*.xml")):
        for name, described in MujocoSimulation(path).handshake().objects.items():
            assert len(described.control_ranges) == len(described.controls), (path.stem, name)
            assert len(described.joint_limits) == len(described.joint_sensors), (path.stem, name)


def test_the_arm_scenes_angle_controls_take_the_joint_ranges() -> None:
    arm = MujocoSimulation(SCENES_DIR / "arm.xml").handshake().objects["arm"]
    assert arm.control_types == [ValueType.ANGLE] * 7
    # inheritrange takes the joint's range through its midpoint and width: equal up to rounding.
    assert [(r.min, r.max) for r in arm.control_ranges] == [
        (pytest.approx(r.min, abs=1e-12), pytest.approx(r.max, abs=1e-12)) for r in arm.joint_limits[:7]
    ]
    assert arm.joint_limits[3] == Range(-3.0718, -0.0698, True)
    assert all(r.limited for r in arm.control_ranges)


def _gear_rounding_outward(high: float, servo: bool) -> float:
    """A gear whose round trip takes `high` one bit above itself: high * gear / gear (or high / gear * gear)."""
    gears = np.arange(2.0, 200.0)
    there = high / gears if servo else high * gears
    back = there * gears if servo else there / gears
    return float(gears[back > high][0])


@pytest.mark.parametrize("servo", [False, True])
def test_sending_an_end_of_a_control_range_is_never_clamped(servo: bool) -> None:
    gear = _gear_rounding_outward(0.1, servo)
    kind = f'position kp="10" gear="{gear}"' if servo else f'motor gear="{gear}"'
    sim = MujocoSimulation.from_xml_string(
        _ROBOT.format(actuators=f'<{kind} name="a" joint="hinge" ctrlrange="-0.1 0.1" ctrllimited="true"/>'))
    announced = sim.handshake().objects["robot"].control_ranges[0]
    for end in (announced.min, announced.max):
        sim.apply(ControlMessage(objects={"robot": ObjectControl(values=[end])}))
        assert -0.1 <= sim.data.ctrl[0] <= 0.1
    assert sim.clamped_values == 0
    # Moved inward by no more than a bit from ctrlrange * gear (motor) or ctrlrange / gear (servo).
    exact = 0.1 / gear if servo else 0.1 * gear
    assert announced.max == np.nextafter(exact, 0.0)
    assert announced.min == -announced.max
