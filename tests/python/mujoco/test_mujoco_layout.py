"""The handshake derived from a MuJoCo model matches what the model contains."""

from __future__ import annotations


import mujoco
import pytest

from coupler.wire.messages import ValueType
from coupler.mujoco.layout import EVENT_GROUP, SceneLayout, scene_layout

from coupler.scenes import SCENES_DIR
SCENES = sorted(p.stem for p in SCENES_DIR.glob("*.xml"))


@pytest.fixture(scope="module", params=SCENES)
def scene(request: pytest.FixtureRequest) -> tuple[mujoco.MjModel, SceneLayout]:
    model = mujoco.MjModel.from_xml_path(str(SCENES_DIR / f"{request.param}.xml"))
    return model, scene_layout(model)


def _root(model: mujoco.MjModel, body: int) -> int:
    return int(model.body_rootid[body])


def _name(model: mujoco.MjModel, obj: mujoco.mjtObj, i: int) -> str:
    return mujoco.mj_id2name(model, obj, i) or ""


def _joint_root_of_actuator(model: mujoco.MjModel, a: int) -> int:
    """Root body of the joint an actuator drives, directly or through a fixed tendon."""
    if int(model.actuator_trntype[a]) == int(mujoco.mjtTrn.mjTRN_TENDON):
        first_wrap = model.tendon_adr[model.actuator_trnid[a][0]]
        joint = model.wrap_objid[first_wrap]
    else:
        joint = model.actuator_trnid[a][0]
    return _root(model, model.jnt_bodyid[joint])


def _layout_of(xml: str) -> SceneLayout:
    return scene_layout(mujoco.MjModel.from_xml_string(xml))


def test_scenes_are_found() -> None:
    assert {"arm", "two_arms", "mobile"} <= set(SCENES)


def test_served_objects_are_the_bodies_under_the_world_that_have_joints(scene) -> None:
    model, layout = scene
    expected = {
        _name(model, mujoco.mjtObj.mjOBJ_BODY, b)
        for b in range(1, model.nbody)
        if model.body_parentid[b] == 0 and any(_root(model, model.jnt_bodyid[j]) == b for j in range(model.njnt))
    }
    assert set(layout.handshake.objects) == expected


def test_robot_controls_are_its_joint_actuators_outside_the_event_group_in_model_order(scene) -> None:
    model, layout = scene
    for name, described in layout.handshake.objects.items():
        body = model.body(name).id
        expected = [
            _name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a)
            for a in range(model.nu)
            if model.actuator_group[a] != EVENT_GROUP and _joint_root_of_actuator(model, a) == body
        ]
        assert described.controls == expected
        assert len(described.control_types) == len(expected)


def test_robot_events_are_its_actuators_in_the_event_group(scene) -> None:
    model, layout = scene
    for name, described in layout.handshake.objects.items():
        body = model.body(name).id
        expected = {
            _name(model, mujoco.mjtObj.mjOBJ_ACTUATOR, a): ValueType.ACTIVATED
            for a in range(model.nu)
            if model.actuator_group[a] == EVENT_GROUP and _joint_root_of_actuator(model, a) == body
        }
        assert described.control_events == expected


def test_joint_sensors_are_every_hinge_and_slide_joint_of_the_robot(scene) -> None:
    model, layout = scene
    scalar = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    for name, described in layout.handshake.objects.items():
        body = model.body(name).id
        expected = [
            _name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
            for j in range(model.njnt)
            if int(model.jnt_type[j]) in scalar and _root(model, model.jnt_bodyid[j]) == body
        ]
        if described.controls or described.control_events:
            assert described.joint_sensors == expected
        else:
            assert described.joint_sensors == []


def test_every_model_sensor_is_one_reading_of_a_named_sensor(scene) -> None:
    model, layout = scene
    readings = sum(len(types) for d in layout.handshake.objects.values() for types in d.sensors.values())
    assert readings == model.nsensor


def test_every_object_reports_position_and_rpy_and_a_free_one_its_velocities(scene) -> None:
    model, layout = scene
    for target in layout.objects.values():
        first_joint = model.body_jntadr[target.body]
        free = first_joint >= 0 and model.jnt_type[first_joint] == mujoco.mjtJoint.mjJNT_FREE
        velocities = [ValueType.VELOCITY_3D, ValueType.ANGULAR_VELOCITY_3D] if free else []
        assert target.description.object_sensors == [ValueType.POSITION, ValueType.RPY, *velocities]


def test_time_step_is_the_models(scene) -> None:
    model, layout = scene
    assert layout.handshake.time_step == model.opt.timestep


def test_demo_scenes_have_nothing_unmapped(scene) -> None:
    _, layout = scene
    assert layout.unmapped == []


def test_index_arrays_address_the_named_joints_and_actuators(scene) -> None:
    model, layout = scene
    for name, target in layout.objects.items():
        described = layout.handshake.objects[name]
        assert target.qpos_adr.tolist() == [model.joint(j).qposadr[0] for j in described.joint_sensors]
        assert target.dof_adr.tolist() == [model.joint(j).dofadr[0] for j in described.joint_sensors]
        assert target.ctrl_adr.tolist() == [model.actuator_ctrladr[model.actuator(c).id] for c in described.controls]


def test_every_control_type_appears_across_arm_and_mobile() -> None:
    types = set()
    for scene_name in ("arm", "mobile"):
        layout = scene_layout(mujoco.MjModel.from_xml_path(str(SCENES_DIR / f"{scene_name}.xml")))
        for described in layout.handshake.objects.values():
            types.update(described.control_types)
    assert types == {ValueType.ANGLE, ValueType.ANGULAR_VELOCITY_1D, ValueType.TORQUE_1D, ValueType.FORCE_1D}


@pytest.mark.parametrize(
    ("actuator", "joint_type", "expected"),
    [
        ('<position joint="j" kp="50"/>', "hinge", ValueType.ANGLE),
        ('<position joint="j" kp="50" kv="5"/>', "hinge", ValueType.ANGLE),
        ('<position joint="j" kp="50" timeconst="0.05"/>', "hinge", ValueType.ANGLE),
        ('<general joint="j" gainprm="50" biastype="affine" biasprm="0 -50 -2"/>', "hinge", ValueType.ANGLE),
        ('<velocity joint="j" kv="5"/>', "hinge", ValueType.ANGULAR_VELOCITY_1D),
        ('<intvelocity joint="j" kp="50" actrange="-1 1"/>', "hinge", ValueType.ANGULAR_VELOCITY_1D),
        ('<motor joint="j"/>', "hinge", ValueType.TORQUE_1D),
        ('<motor joint="j" gear="20"/>', "hinge", ValueType.TORQUE_1D),
        ('<motor joint="j"/>', "slide", ValueType.FORCE_1D),
    ],
)
def test_control_type_follows_actuator_kind_and_joint_type(actuator: str, joint_type: str, expected: ValueType) -> None:
    layout = _layout_of(f"""
        <mujoco><worldbody><body name="robot"><joint name="j" type="{joint_type}"/><geom size="0.1"/></body></worldbody>
        <actuator>{actuator}</actuator></mujoco>""")
    assert layout.handshake.objects["robot"].control_types == [expected]
    assert layout.unmapped == []


def test_sensors_on_one_site_form_one_named_sensor_in_model_order() -> None:
    layout = _layout_of("""
        <mujoco><worldbody><body name="robot"><joint name="j"/><geom size="0.1"/><site name="ft"/></body></worldbody>
        <actuator><motor joint="j"/></actuator>
        <sensor><torque site="ft"/><jointpos name="angle" joint="j"/><force site="ft"/></sensor></mujoco>""")
    assert layout.handshake.objects["robot"].sensors == {
        "ft": [ValueType.TORQUE_3D, ValueType.FORCE_3D],
        "angle": [ValueType.ANGLE],
    }


def test_unnamed_actuator_control_is_named_after_its_joint() -> None:
    layout = _layout_of("""
        <mujoco><worldbody><body name="robot"><joint name="elbow"/><geom size="0.1"/></body></worldbody>
        <actuator><motor joint="elbow"/></actuator></mujoco>""")
    assert layout.handshake.objects["robot"].controls == ["elbow"]


def test_event_actuator_maps_off_and_activated_to_its_ctrlrange() -> None:
    layout = _layout_of(f"""
        <mujoco><worldbody><body name="robot"><joint name="j" type="slide"/><geom size="0.1"/></body></worldbody>
        <actuator><position name="clamp" joint="j" kp="10" group="{EVENT_GROUP}" ctrlrange="-0.01 0.03"/></actuator>
        </mujoco>""")
    event = layout.objects["robot"].events["clamp"]
    assert (event.off, event.on) == (-0.01, 0.03)
    assert layout.handshake.objects["robot"].controls == []


_UNMAPPABLE = f"""
<mujoco>
  <worldbody>
    <body name="robot">
      <joint name="hinge"/>
      <geom size="0.1"/>
      <site name="compass_site"/>
      <body name="wrist">
        <joint name="ball" type="ball"/>
        <geom size="0.05"/>
        <body name="slider">
          <joint name="slide" type="slide"/>
          <geom size="0.05"/>
        </body>
      </body>
    </body>
    <body pos="1 0 0">
      <joint name="orphan_joint"/>
      <geom size="0.1"/>
    </body>
    <body name="door" pos="2 0 0">
      <joint name="door_hinge"/>
      <geom size="0.1"/>
    </body>
  </worldbody>
  <tendon><fixed name="coupling"><joint joint="hinge" coef="1"/><joint joint="slide" coef="1"/></fixed></tendon>
  <actuator>
    <motor name="hinge_motor" joint="hinge"/>
    <orientation name="ball_servo" joint="ball" kp="10"/>
    <position name="slide_servo" joint="slide" kp="10"/>
    <motor name="tendon_motor" tendon="coupling"/>
    <motor name="switch_without_range" joint="hinge" group="{EVENT_GROUP}"/>
    <motor name="orphan_motor" joint="orphan_joint"/>
    <damper name="damper" joint="hinge" kv="1" ctrlrange="0 1"/>
  </actuator>
  <sensor>
    <magnetometer name="compass" site="compass_site"/>
    <clock name="stopwatch"/>
    <clock/>
  </sensor>
</mujoco>
"""


@pytest.fixture(scope="module")
def unmappable() -> SceneLayout:
    return _layout_of(_UNMAPPABLE)


@pytest.mark.parametrize(
    "element",
    [
        "unnamed body #",
        "'orphan_motor'",
        "'ball_servo'",
        "'switch_without_range'",
        "unnamed sensor #",
    ],
)
def test_unmappable_element_is_reported_by_name(unmappable: SceneLayout, element: str) -> None:
    assert any(element in problem for problem in unmappable.unmapped), unmappable.unmapped


def test_unmappable_elements_leave_the_mappable_ones_served(unmappable: SceneLayout) -> None:
    robot = unmappable.handshake.objects["robot"]
    assert robot.controls == ["hinge_motor", "slide_servo", "tendon_motor", "damper"]
    assert robot.joint_sensors == ["hinge", "slide"]
    assert set(robot.sensors) == {"ball", "compass"}
    assert set(unmappable.handshake.objects) == {"robot", "door", "world"}
    assert unmappable.handshake.objects["world"].sensors == {"stopwatch": [ValueType.NUMBER]}
    assert unmappable.handshake.objects["door"].joint_sensors == ["door_hinge"]



_RANGED = """
<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="bot">
      <joint name="hinge" range="-1 2"/>
      <joint name="free_hinge" axis="1 0 0"/>
      <geom size="0.1"/>
    </body>
  </worldbody>
  <actuator>
    <position name="servo" joint="hinge" ctrlrange="-0.5 1.5" gear="2"/>
    <motor name="motor" joint="free_hinge" ctrlrange="-1 1" gear="-4"/>
    <motor name="loose" joint="free_hinge"/>
  </actuator>
</mujoco>
"""


def test_control_ranges_are_the_actuator_ctrlranges_in_the_controls_units() -> None:
    ranges = _layout_of(_RANGED).handshake.objects["bot"].control_ranges
    # A servo's setpoint is gear * joint position, a motor's force is divided by its gear.
    assert (ranges[0].min, ranges[0].max, ranges[0].limited) == (-0.25, 0.75, True)
    assert (ranges[1].min, ranges[1].max, ranges[1].limited) == (-4.0, 4.0, True)
    assert not ranges[2].limited


def test_joint_limits_are_the_joint_ranges_and_unlimited_without_one() -> None:
    limits = _layout_of(_RANGED).handshake.objects["bot"].joint_limits
    assert (limits[0].min, limits[0].max, limits[0].limited) == (-1.0, 2.0, True)
    assert not limits[1].limited
