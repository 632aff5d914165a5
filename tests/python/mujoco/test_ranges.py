"""The handshake's control ranges and joint limits (the "ranges" extension) follow the model."""

from __future__ import annotations

import mujoco
import pytest

from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation
from coupler.scenes import SCENES_DIR
from coupler.wire.messages import Range, ValueType

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
