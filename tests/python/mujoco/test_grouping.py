"""Which bodies form one robot: one per mechanism mounted on static bodies, unless `--robot BODY` says otherwise."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from coupler.controller.session import Session
from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_batch import WorldBatch
from coupler.wire.errors import Error
from peers import coupler_server, free_tcp_address

_ARM = """
      <body name="{side}_arm_mount" pos="0 {y} 0.3">
        <body name="{side}_upper">
          <joint name="{side}_shoulder" axis="0 1 0"/>
          <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
          <body name="{side}_forearm" pos="0.3 0 0">
            <joint name="{side}_elbow" axis="0 1 0"/>
            <geom type="capsule" fromto="0 0 0 0.25 0 0" size="0.03"/>
          </body>
        </body>
      </body>"""
_ACTUATORS = """
    <motor name="{side}_shoulder_motor" joint="{side}_shoulder" gear="30"/>
    <position name="{side}_elbow_servo" joint="{side}_elbow" kp="20"/>"""

# Two arms on a static torso, as Baxter's.
_STATIC_TORSO = f"""
<mujoco>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body name="base" pos="0 0 0.5">
      <geom type="box" size="0.2 0.2 0.3"/>
      {_ARM.format(side="left", y=0.25)}
      {_ARM.format(side="right", y=-0.25)}
    </body>
  </worldbody>
  <actuator>{_ACTUATORS.format(side="left")}{_ACTUATORS.format(side="right")}
  </actuator>
</mujoco>
"""

# Two arms on a lift that slides up and down, as Tiago's.
_LIFT = f"""
<mujoco>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body name="base" pos="0 0 0.5">
      <geom type="box" size="0.2 0.2 0.1"/>
      <body name="lift">
        <joint name="lift" type="slide" axis="0 0 1" range="0 0.4"/>
        <geom type="box" size="0.1 0.1 0.3"/>
        {_ARM.format(side="left", y=0.25)}
        {_ARM.format(side="right", y=-0.25)}
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="lift_servo" joint="lift" kp="500"/>{_ACTUATORS.format(side="left")}{_ACTUATORS.format(side="right")}
  </actuator>
</mujoco>
"""

_EVERY_CONTROL = ["left_shoulder_motor", "left_elbow_servo", "right_shoulder_motor", "right_elbow_servo"]


def _objects(xml: str, robots: list[str] | None = None) -> dict:
    return scene_layout(mujoco.MjModel.from_xml_string(xml), robots or []).handshake.objects


def test_arms_on_a_static_torso_are_two_robots_named_after_their_mounts() -> None:
    objects = _objects(_STATIC_TORSO)
    assert list(objects) == ["left_arm_mount", "right_arm_mount"]
    assert objects["left_arm_mount"].controls == ["left_shoulder_motor", "left_elbow_servo"]


def test_arms_on_a_moving_lift_are_one_robot_named_after_the_static_base() -> None:
    objects = _objects(_LIFT)
    assert list(objects) == ["base"]
    assert objects["base"].controls == ["lift_servo", *_EVERY_CONTROL]


def test_robot_body_serves_its_whole_subtree_as_one_robot() -> None:
    objects = _objects(_STATIC_TORSO, ["base"])
    assert list(objects) == ["base"]
    assert objects["base"].controls == _EVERY_CONTROL
    assert objects["base"].joint_sensors == ["left_shoulder", "left_elbow", "right_shoulder", "right_elbow"]


def test_robot_body_inside_a_mechanism_splits_it_and_the_rule_groups_the_rest() -> None:
    objects = _objects(_LIFT, ["left_forearm"])
    assert list(objects) == ["base", "left_forearm"]
    assert objects["left_forearm"].controls == ["left_elbow_servo"]
    assert objects["base"].controls == ["lift_servo", "left_shoulder_motor", "right_shoulder_motor",
                                        "right_elbow_servo"]


def test_robot_body_the_model_lacks_is_one_line_listing_the_bodies_it_has() -> None:
    with pytest.raises(Error) as refused:
        _objects(_STATIC_TORSO, ["torso"])
    assert str(refused.value).startswith("no body named 'torso' to serve as a robot; valid names: 'base', "
                                         "'left_arm_mount', 'left_upper'")


def test_robot_body_inside_another_robot_body_is_refused_naming_both() -> None:
    with pytest.raises(Error, match="'left_upper' .* inside body 'base'"):
        _objects(_STATIC_TORSO, ["left_upper", "base"])


def test_the_world_body_cannot_be_a_robot() -> None:
    with pytest.raises(Error, match="world body"):
        _objects(_STATIC_TORSO, ["world"])


def test_batched_worlds_group_their_copies_as_the_first() -> None:
    first = MujocoSimulation.from_xml_string(_STATIC_TORSO, robots=["base"])
    batch = WorldBatch(first, 2)
    try:
        assert [list(world.handshake().objects) for world in batch.worlds] == [["base"], ["base"]]
    finally:
        batch.close()


def test_serve_robot_serves_the_subtree_as_one_robot_stepping_as_mj_step(tmp_path: Path) -> None:
    path = tmp_path / "static_torso.xml"
    path.write_text(_STATIC_TORSO)
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(path), "--robot", "base"), Session(address, reset=True) as session:
        assert list(session.handshake.objects) == ["base"]
        controls = session.controls()
        rng = np.random.default_rng(4)
        for _ in range(30):
            values = rng.uniform(-1.0, 1.0, size=4)
            controls["base"][:] = values
            served = session.step(controls)
            # Motors: ctrl = value / gear; position servos (gear 1): ctrl = value.
            data.ctrl[:] = [values[0] / 30.0, values[1], values[2] / 30.0, values[3]]
            mujoco.mj_step(model, data)
        np.testing.assert_array_equal(served.angles("base"), data.qpos)
        np.testing.assert_array_equal(served.angular_velocities("base"), data.qvel)
