"""Models nobody wrote for coupler are served whole: every moving body, every actuator or its refusal, every sensor."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import pytest

from coupler.wire.messages import ControlMessage, ObjectControl, ValueType
from coupler.mujoco.layout import scene_layout
from coupler.mujoco.simulation import MujocoSimulation, ModelError

MODELS = Path(__file__).parent / "models"
MODEL_NAMES = sorted(p.stem for p in MODELS.glob("*.xml"))
_Obj = mujoco.mjtObj
_Sens = mujoco.mjtSensor


def _model(name: str) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_path(str(MODELS / f"{name}.xml"))


def _name(model: mujoco.MjModel, obj: mujoco.mjtObj, i: int) -> str:
    return mujoco.mj_id2name(model, obj, i) or ""


@pytest.fixture(params=MODEL_NAMES)
def model_name(request: pytest.FixtureRequest) -> str:
    return request.param


def test_robots_on_a_shared_static_base_are_robots_of_their_own_named_after_their_bases() -> None:
    objects = scene_layout(_model("shared_base")).handshake.objects
    assert objects["left_base"].controls == ["left_shoulder_servo", "left_elbow_motor"]
    assert objects["right_base"].controls == ["right_shoulder_motor"]
    assert "table" not in objects


def test_served_things_come_in_model_order() -> None:
    objects = scene_layout(_model("shared_base")).handshake.objects
    assert list(objects) == ["left_base", "right_base", "door", "drawer", "ring", "ball"]


@pytest.mark.parametrize(("body", "joints"), [("door", ["door_hinge"]), ("drawer", ["drawer_slide"]),
                                              ("ring", ["swing"])])
def test_unactuated_jointed_body_is_an_object_with_its_joint_readings(body: str, joints: list[str]) -> None:
    described = scene_layout(_model("shared_base")).handshake.objects[body]
    assert described.controls == []
    assert described.joint_sensors == joints


def test_a_ball_joint_is_a_named_sensor_of_its_orientation_and_angular_velocity() -> None:
    described = scene_layout(_model("shared_base")).handshake.objects["ring"]
    assert described.sensors["wobble"] == [ValueType.RPY, ValueType.ANGULAR_VELOCITY_3D]
    assert "wobble" not in described.joint_sensors


def test_every_actuator_is_served_or_reported_by_name(model_name: str) -> None:
    model = _model(model_name)
    layout = scene_layout(model)
    served = {c for d in layout.handshake.objects.values() for c in [*d.controls, *d.control_events]}
    for a in range(model.nactuator):
        name = _name(model, _Obj.mjOBJ_ACTUATOR, a)
        assert name in served or any(f"'{name}'" in problem for problem in layout.unmapped), name


def test_every_moving_body_belongs_to_a_served_object(model_name: str) -> None:
    model = _model(model_name)
    layout = scene_layout(model)
    served_bodies = {target.body for target in layout.objects.values()}
    for b in range(1, model.nbody):
        if model.body_weldid[b] != b:
            continue
        ancestors, a = set(), b
        while a != 0:
            ancestors.add(a)
            a = int(model.body_parentid[a])
        assert ancestors & served_bodies, _name(model, _Obj.mjOBJ_BODY, b)


def test_every_sensor_is_found_by_its_own_name_with_its_number_of_values(model_name: str) -> None:
    model = _model(model_name)
    sim = MujocoSimulation(model)
    readings = {name: r for o in sim.sensors().objects.values() for name, r in o.sensors.items()}
    for s in range(model.nsensor):
        name = _name(model, _Obj.mjOBJ_SENSOR, s)
        # A quaternion (framequat, ballquat) is sent as roll, pitch and yaw.
        is_quaternion = int(model.sensor_type[s]) in (_Sens.mjSENS_FRAMEQUAT, _Sens.mjSENS_BALLQUAT)
        expected = 3 if is_quaternion else model.sensor_dim[s]
        assert sum(len(r.value) for r in readings[name]) == expected, name


@pytest.mark.parametrize(("model_name", "body"), [("shared_base", "ball"), ("floating_base", "torso")])
def test_free_body_reports_world_linear_and_angular_velocity(model_name: str, body: str) -> None:
    sim = MujocoSimulation(_model(model_name))
    assert sim.handshake().objects[body].object_sensors == [
        ValueType.POSITION, ValueType.RPY, ValueType.VELOCITY_3D, ValueType.ANGULAR_VELOCITY_3D]
    sim.data.qvel[sim.layout.objects[body].free_dof:][:6] = [0.3, -0.2, 0.5, 1.0, -2.0, 0.7]
    mujoco.mj_forward(sim.model, sim.data)
    sim.step(20)  # spinning, flying and tilted
    message = sim.sensors().objects[body]
    _, _, linear, angular = message.object_sensors
    assert np.any(np.abs(angular.value) > 0.1)
    # MuJoCo's own frame sensors of the body measure the same velocities.
    assert linear.value == pytest.approx(sim.data.sensor(f"{body}_linvel").data, abs=1e-12)
    assert angular.value == pytest.approx(sim.data.sensor(f"{body}_angvel").data, abs=1e-12)


_MOTOR_TYPES = (ValueType.TORQUE_1D, ValueType.FORCE_1D)


def _in_range_controls(sim: MujocoSimulation, rng: np.random.Generator) -> tuple[ControlMessage, np.ndarray]:
    """Random values inside every control's range, and the actuator inputs the documented mapping makes of them."""
    model = sim.model
    ctrl = sim.data.ctrl.copy()
    message = ControlMessage()
    for name, target in sim.layout.objects.items():
        values = []
        for adr, value_type in zip(target.ctrl_adr, target.description.control_types):
            low, high = model.actuator_ctrlrange[adr]
            gear = float(model.actuator_gear[adr][0])
            # Motors take force at the joint (ctrl = value / gear), servos joint positions or speeds
            # (ctrl = value * gear), every other actuator its own ctrl.
            if value_type == ValueType.ACTUATOR_INPUT:
                value = float(rng.uniform(low, high))
                ctrl[adr] = value
            elif value_type in _MOTOR_TYPES:
                value = float(rng.uniform(low, high) * gear)
                ctrl[adr] = value / gear
            else:
                value = float(rng.uniform(low, high) / gear)
                ctrl[adr] = value * gear
            values.append(value)
        if values:
            message.objects[name] = ObjectControl(values=values)
    return message, ctrl


def test_random_in_range_controls_step_as_mj_step_bit_for_bit(model_name: str) -> None:
    sim = MujocoSimulation(_model(model_name))
    model, data = sim.model, mujoco.MjData(sim.model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)  # where the simulation starts
    mujoco.mj_forward(model, data)
    rng = np.random.default_rng(11)
    readings = sim.flat.sensors.values
    for _ in range(1000):
        message, ctrl = _in_range_controls(sim, rng)
        sim.apply(message)
        assert np.array_equal(sim.data.ctrl, ctrl)
        sim.step()
        sim.sensor_values(readings)
        data.ctrl[:] = ctrl
        mujoco.mj_step(model, data)
        mujoco.mj_forward(model, data)
        for field in ("ctrl", "qpos", "qvel", "act", "sensordata"):
            assert np.array_equal(getattr(sim.data, field), getattr(data, field)), (field, data.time)


def test_model_that_does_not_compile_is_one_line_naming_file_line_and_reason(tmp_path: Path) -> None:
    path = tmp_path / "broken.xml"
    path.write_text("<mujoco>\n  <worldbody>\n    <body><geom type='nosuchtype'/></body>\n  </worldbody>\n</mujoco>\n")
    with pytest.raises(ModelError) as caught:
        MujocoSimulation(path)
    text = str(caught.value)
    assert "\n" not in text
    assert str(path) in text and "line 3" in text and "nosuchtype" in text


def test_two_sensors_of_one_type_on_one_site_are_served_each_under_its_own_name() -> None:
    sensors = scene_layout(_model("floating_base")).handshake.objects["torso"].sensors
    assert sensors["gyro_a"] == [ValueType.ANGULAR_VELOCITY_3D]
    assert sensors["gyro_b"] == [ValueType.ANGULAR_VELOCITY_3D]


def test_each_control_names_the_joint_it_drives() -> None:
    objects = scene_layout(_model("shared_base")).handshake.objects
    assert objects["left_base"].control_targets == ["left_shoulder", "left_elbow"]
    assert objects["right_base"].control_targets == ["right_shoulder"]
