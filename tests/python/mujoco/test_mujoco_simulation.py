"""MujocoSimulation serves a MuJoCo scene through the Simulation protocol."""

from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ControlMessage, ErrorCode, ObjectControl, ValueType
from coupler._native import quaternion_to_rpy
from coupler.mujoco.flat import gathered_arrays
from coupler.mujoco.simulation import MujocoSimulation

from coupler.scenes import SCENES_DIR

PENDULUM = """
<mujoco model="pendulum">
  <option timestep="0.005"/>
  <worldbody>
    <body name="pendulum" pos="0 0 1">
      <joint name="swing" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02" mass="1"/>
    </body>
  </worldbody>
  <actuator><motor name="swing" joint="swing" gear="10" ctrlrange="-1 1"/></actuator>
</mujoco>
"""


def _scene(name: str, **kwargs) -> MujocoSimulation:
    return MujocoSimulation(SCENES_DIR / f"{name}.xml", **kwargs)


def _control(obj: str, values: list[float] | None = None, **events: bool) -> ControlMessage:
    return ControlMessage(objects={obj: ObjectControl(values=values or [], events=events)})


def _home_values(sim: MujocoSimulation, obj: str) -> list[float]:
    """The object's control values as keyframe 0 sets them."""
    target = sim.layout.objects[obj]
    return (sim.model.key_ctrl[0][target.ctrl_adr] * target.ctrl_divisor / target.ctrl_scale).tolist()


def _state(sim: MujocoSimulation) -> dict[str, np.ndarray]:
    d = sim.data
    return {"qpos": d.qpos.copy(), "qvel": d.qvel.copy(), "act": d.act.copy(), "ctrl": d.ctrl.copy(),
            "time": np.array([d.time])}


@pytest.fixture
def arm() -> MujocoSimulation:
    return _scene("arm")


@pytest.fixture
def mobile() -> MujocoSimulation:
    return _scene("mobile")


def test_step_advances_time_by_one_time_step_per_step(arm: MujocoSimulation) -> None:
    dt = arm.handshake().time_step
    arm.step()
    assert arm.sensors().simulated_time == dt
    arm.step(9)
    assert arm.sensors().simulated_time == pytest.approx(10 * dt, rel=1e-12)


def test_time_step_override_sets_the_handshake_and_the_step() -> None:
    sim = _scene("arm", time_step=0.001)
    sim.step()
    assert sim.handshake().time_step == 0.001
    assert sim.sensors().simulated_time == 0.001


def test_non_positive_time_step_is_rejected() -> None:
    with pytest.raises(ValueError, match="time step"):
        _scene("arm", time_step=0.0)


def test_new_simulation_starts_at_keyframe_zero(arm: MujocoSimulation) -> None:
    assert np.array_equal(arm.data.qpos, arm.model.key_qpos[0])
    assert np.array_equal(arm.data.ctrl, arm.model.key_ctrl[0])


def test_reset_restores_the_initial_state_bit_for_bit(arm: MujocoSimulation) -> None:
    initial = _state(arm)
    arm.apply(_control("arm", [0.4, 0.2, -0.3, -1.8, 0.5, 2.0, 0.1], gripper=True))
    arm.step(200)
    arm.reset()
    for key, value in _state(arm).items():
        assert np.array_equal(value, initial[key]), key


# The state a reset leaves; beside it, every array the scene's readings are gathered from, as mj_forward computes it.
_STATE = ("qpos", "qvel", "act", "ctrl")

# A pendulum without keyframes: a reset starts from the model's reference configuration.
_PENDULUM = """
<mujoco>
  <worldbody>
    <body name="pendulum" pos="0 0 0.5">
      <joint name="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/>
    </body>
  </worldbody>
  <actuator><motor name="hinge" joint="hinge"/></actuator>
  <sensor><jointpos joint="hinge"/><jointvel joint="hinge"/></sensor>
</mujoco>
"""


@pytest.mark.parametrize("scene", ["arm", "pendulum"])
def test_a_reset_to_a_state_leaves_what_mujocos_own_reset_leaves_bit_for_bit(scene: str) -> None:
    sim = _scene("arm") if scene == "arm" else MujocoSimulation.from_xml_string(_PENDULUM)
    model = sim.model
    rng = np.random.default_rng(3)
    qpos, qvel = rng.uniform(-0.5, 0.5, model.nq).tolist(), rng.uniform(-1, 1, model.nv).tolist()
    sim.data.ctrl[:] = 0.3
    sim.step(50)
    sim.reset_to(qpos, qvel)
    data = mujoco.MjData(model)
    if model.nkey:
        mujoco.mj_resetDataKeyframe(model, data, 0)  # the start keyframe
    else:
        mujoco.mj_resetData(model, data)
    data.qpos[:], data.qvel[:] = qpos, qvel
    mujoco.mj_forward(model, data)
    assert sim.data.time == data.time
    for name in (*_STATE, *sorted(gathered_arrays(sim.layout, sim.flat))):
        assert np.array_equal(getattr(sim.data, name), getattr(data, name)), name


def test_reset_reproduces_the_trajectory_bit_for_bit(arm: MujocoSimulation) -> None:
    control = _control("arm", [0.4, 0.2, -0.3, -1.8, 0.5, 2.0, 0.1], gripper=True)
    arm.apply(control)
    arm.step(100)
    first = _state(arm)
    arm.reset()
    arm.apply(control)
    arm.step(100)
    for key, value in _state(arm).items():
        assert np.array_equal(value, first[key]), key


def test_reading_sensors_does_not_change_the_trajectory() -> None:
    read, unread = _scene("arm"), _scene("arm")
    control = _control("arm", [0.4, 0.2, -0.3, -1.8, 0.5, 2.0, 0.1], gripper=True)
    for sim in (read, unread):
        sim.apply(control)
    for _ in range(50):
        read.step()
        read.sensors()
        unread.step()
    assert np.array_equal(read.data.qpos, unread.data.qpos)
    assert np.array_equal(read.data.qvel, unread.data.qvel)


@pytest.mark.parametrize("integrator", list(mujoco.mjtIntegrator.__members__.values()), ids=lambda i: i.name)
def test_stepping_while_reading_sensors_matches_plain_mj_step_bit_for_bit(integrator: mujoco.mjtIntegrator) -> None:
    model = mujoco.MjModel.from_xml_path(str(SCENES_DIR / "arm.xml"))
    model.opt.integrator = integrator
    sim = MujocoSimulation(model)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    rng = np.random.default_rng(7)
    readings = sim.flat.sensors.values
    for steps in rng.integers(1, 4, size=200):
        values = rng.uniform(-1.0, 1.0, 7).tolist()
        sim.apply(_control("arm", values, gripper=bool(rng.integers(2))))
        sim.step(int(steps))
        sim.sensor_values(readings)
        data.ctrl[:] = sim.data.ctrl
        mujoco.mj_step(model, data, nstep=int(steps))
        mujoco.mj_forward(model, data)
        for field in ("qpos", "qvel", "act", "qacc_warmstart", "sensordata", "qfrc_actuator"):
            assert np.array_equal(getattr(sim.data, field), getattr(data, field)), (field, sim.data.time)


def test_a_state_reset_by_the_instability_check_is_stepped_from_scratch(
    arm: MujocoSimulation, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo logs the warning to a file in the working directory
    arm.sensors()
    arm.data.qvel[0] = 1e20  # past MuJoCo's limit: the step's check resets the state
    reference = mujoco.MjData(arm.model)
    mujoco.mj_copyData(reference, arm.model, arm.data)
    arm.step()
    mujoco.mj_step(arm.model, reference)
    assert arm.data.warning[mujoco.mjtWarning.mjWARN_BADQVEL].number == 1
    assert np.array_equal(arm.data.qpos, reference.qpos)
    assert np.array_equal(arm.data.qvel, reference.qvel)


def test_user_supplied_mjcf_path_is_served(tmp_path: Path) -> None:
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM)
    sim = MujocoSimulation(path)
    described = sim.handshake().objects["pendulum"]
    assert described.controls == ["swing"]
    assert described.control_types == [ValueType.TORQUE_1D]
    assert sim.handshake().time_step == 0.005


def test_missing_mjcf_file_is_reported_by_path(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nowhere.xml"):
        MujocoSimulation(tmp_path / "nowhere.xml")


def test_position_control_moves_the_joint_to_its_target(arm: MujocoSimulation) -> None:
    values = _home_values(arm, "arm")
    start = arm.sensors().objects["arm"].angles[1]
    values[1] = start + 0.3
    arm.apply(_control("arm", values))
    arm.step(250)  # 0.5 s
    assert arm.sensors().objects["arm"].angles[1] == pytest.approx(start + 0.3, abs=0.01)


def test_gripper_event_closes_and_opens_the_fingers(arm: MujocoSimulation) -> None:
    fingers = slice(7, 9)
    home = _home_values(arm, "arm")
    arm.apply(_control("arm", home, gripper=True))
    arm.step(250)
    assert all(q > 0.035 for q in arm.sensors().objects["arm"].angles[fingers])
    arm.apply(_control("arm", home, gripper=False))
    arm.step(250)
    assert all(q < 0.005 for q in arm.sensors().objects["arm"].angles[fingers])


def test_missing_events_keep_their_last_value(arm: MujocoSimulation) -> None:
    gripper = arm.layout.objects["arm"].events["gripper"]
    arm.apply(_control("arm", _home_values(arm, "arm"), gripper=True))
    arm.apply(_control("arm", _home_values(arm, "arm")))
    assert arm.data.ctrl[gripper.ctrl_adr] == gripper.on


def test_torque_control_applies_the_sent_torque(mobile: MujocoSimulation) -> None:
    mobile.apply(_control("cart", [0.0, 0.0, 3.0, 0.0]))
    cart = mobile.sensors().objects["cart"]
    assert cart.torques[2] == pytest.approx(3.0)


def test_force_control_applies_the_sent_force(mobile: MujocoSimulation) -> None:
    mobile.apply(_control("cart", [0.0, 0.0, 0.0, 40.0]))
    cart = mobile.sensors().objects["cart"]
    assert cart.torques[3] == pytest.approx(40.0)
    assert cart.sensors["lift_force"][0].value == pytest.approx((40.0,))


def test_velocity_control_spins_the_wheels_at_the_sent_speed(mobile: MujocoSimulation) -> None:
    mobile.apply(_control("cart", [4.0, 4.0, 0.0, 0.0]))
    mobile.step(500)  # 1 s
    cart = mobile.sensors().objects["cart"]
    assert cart.angular_velocities[:2] == pytest.approx([4.0, 4.0], rel=0.05)


def test_motor_values_are_joint_torques_whatever_the_gear() -> None:
    sim = MujocoSimulation.from_xml_string(PENDULUM)
    sim.apply(_control("pendulum", [5.0]))
    assert sim.sensors().objects["pendulum"].torques == pytest.approx([5.0])


def test_values_outside_ctrlrange_are_counted_as_clamped() -> None:
    sim = MujocoSimulation.from_xml_string(PENDULUM)  # ctrlrange -1..1 with gear 10: -10..10 Nm
    sim.apply(_control("pendulum", [9.0]))
    assert sim.clamped_values == 0
    sim.apply(_control("pendulum", [12.0]))
    sim.apply(_control("pendulum", [-11.0]))
    assert sim.clamped_values == 2
    assert sim.sensors().objects["pendulum"].torques == pytest.approx([-10.0])


@pytest.mark.parametrize("scene", ["arm", "two_arms", "mobile"])
def test_sensor_message_carries_every_reading_the_handshake_declares(scene: str) -> None:
    sim = _scene(scene)
    message = sim.sensors()
    for name, described in sim.handshake().objects.items():
        readings = message.objects[name]
        joints = len(described.joint_sensors)
        assert (len(readings.angles), len(readings.angular_velocities), len(readings.torques)) == (joints,) * 3
        assert [r.type for r in readings.object_sensors] == described.object_sensors
        assert {s: [r.type for r in rs] for s, rs in readings.sensors.items()} == described.sensors
        for reading in [r for rs in readings.sensors.values() for r in rs] + readings.object_sensors:
            assert len(reading.value) == reading.type.width


def test_object_sensors_report_the_body_position_and_rpy() -> None:
    roll, pitch, yaw = 0.3, -0.4, 1.2
    quat = np.zeros(4)
    mujoco.mju_euler2Quat(quat, np.array([yaw, pitch, roll]), "zyx")
    sim = MujocoSimulation.from_xml_string(f"""
        <mujoco><option gravity="0 0 0"/><worldbody>
          <body name="brick" pos="0.1 0.2 0.3" quat="{' '.join(map(str, quat))}"><freejoint/><geom size="0.1"/></body>
        </worldbody></mujoco>""")
    position, rpy, _, _ = sim.sensors().objects["brick"].object_sensors
    assert position.value == pytest.approx((0.1, 0.2, 0.3))
    assert rpy.value == pytest.approx((roll, pitch, yaw))


def test_framequat_sensor_is_sent_as_rpy(arm: MujocoSimulation) -> None:
    tcp = arm.sensors().objects["arm"].sensors["tcp"]
    rpy = next(r.value for r in tcp if r.type == ValueType.RPY)
    # In the home pose the gripper points straight down with its x axis along the world's.
    assert abs(abs(rpy[0]) - math.pi) < 1e-3 and rpy[1:] == pytest.approx((0.0, 0.0), abs=1e-3)


def test_quaternion_to_rpy_inverts_intrinsic_zyx_euler_angles() -> None:
    # MuJoCo spells intrinsic (rotating-axes) sequences in lower case.
    quat = np.zeros(4)
    for roll, pitch, yaw in [(0.1, 0.2, 0.3), (-2.5, 1.2, -3.0), (3.0, -0.7, 0.0)]:
        mujoco.mju_euler2Quat(quat, np.array([yaw, pitch, roll]), "zyx")
        assert quaternion_to_rpy(*quat) == pytest.approx((roll, pitch, yaw))


@pytest.mark.parametrize("scene", ["arm", "two_arms", "mobile"])
def test_scene_stays_at_rest_for_two_seconds_at_home(scene: str) -> None:
    sim = _scene(scene)
    start = sim.data.qpos.copy()
    sim.step(int(round(2.0 / sim.handshake().time_step)))
    assert np.all(np.isfinite(sim.data.qpos))
    assert np.abs(sim.data.qvel).max() < 0.01
    # A free joint's position block moves a little as things settle; nothing travels.
    assert np.abs(sim.data.qpos - start).max() < 0.01


@pytest.mark.parametrize("scene", ["arm", "two_arms"])
def test_box_rests_on_the_table_after_settling(scene: str) -> None:
    sim = _scene(scene)
    sim.step(1000)
    table_top = 0.75
    position, rpy, _, _ = sim.sensors().objects["box"].object_sensors
    assert position.value[2] == pytest.approx(table_top + 0.025, abs=0.001)
    assert rpy.value[:2] == pytest.approx((0.0, 0.0), abs=1e-3)


_UNLIMITED_MOTOR = """
<mujoco><worldbody><body name="wheel"><joint name="axle"/><geom size="0.1"/></body></worldbody>
<actuator><motor name="axle" joint="axle" gear="4"/></actuator></mujoco>
"""


def test_a_value_mujoco_would_zero_is_refused_naming_its_control_and_leaves_the_controls() -> None:
    sim = MujocoSimulation.from_xml_string(_UNLIMITED_MOTOR)
    sim.apply(_control("wheel", [2.0]))
    with pytest.raises(ProtocolError, match="control 'axle' of object 'wheel' is 1e\\+30") as caught:
        sim.apply(_control("wheel", [1e30]))
    assert caught.value.code == ErrorCode.CONTROL_MISMATCH
    assert sim.data.ctrl[0] == 0.5


def test_a_large_value_mujoco_accepts_is_applied() -> None:
    sim = MujocoSimulation.from_xml_string(_UNLIMITED_MOTOR)
    sim.apply(_control("wheel", [4e9]))
    assert sim.data.ctrl[0] == 1e9
