"""Mocap bodies as controls: x, y, z and qw, qx, qy, qz set mocap_pos and mocap_quat before the step."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from coupler import _native
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_batch import WorldBatch
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    ObjectControl,
    Range,
    SensorMessage,
    ValueType,
)
from coupler.wire.world_frames import WorldControl
from batch_steps import run_batch
from mocap_scenes import MOCAP_ARM as ARM

POSE = ["x", "y", "z", "qw", "qx", "qy", "qz"]


def _pose(rng: np.random.Generator) -> list[float]:
    position = (np.array([0.3, 0.0, 0.5]) + rng.uniform(-0.1, 0.1, 3)).tolist()
    return position + rng.uniform(-1.0, 1.0, 4).tolist()  # a quaternion of any length


def _control(pose: list[float], wrist: float = 0.0) -> ControlMessage:
    return ControlMessage(objects={"target": ObjectControl(pose), "arm": ObjectControl([wrist])})


def test_a_mocap_body_offers_its_position_and_orientation_as_controls_that_name_it():
    target = MujocoSimulation.from_xml_string(ARM).handshake().objects["target"]
    assert target.controls == POSE
    assert target.control_types == [ValueType.MOCAP_POSITION] * 3 + [ValueType.MOCAP_QUATERNION] * 4
    assert target.control_targets == ["target"] * 7
    assert target.control_ranges == [Range()] * 3 + [Range(-1.0, 1.0, True)] * 4


def test_served_answers_equal_mj_step_with_mocap_pos_and_the_normalised_quaternion_set_bit_for_bit():
    server = SimulationServer(MujocoSimulation.from_xml_string(ARM))
    model = mujoco.MjModel.from_xml_string(ARM)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(7)
    for _ in range(30):
        pose, wrist = _pose(rng), float(rng.uniform(-1, 1))
        answer = server.handle(_control(pose, wrist))
        assert isinstance(answer, SensorMessage)
        data.mocap_pos[0] = pose[:3]
        data.mocap_quat[0] = np.array(pose[3:]) / math.hypot(*pose[3:])
        data.ctrl[0] = wrist
        mujoco.mj_step(model, data)
        for name in ("qpos", "qvel", "mocap_pos", "mocap_quat"):
            np.testing.assert_array_equal(getattr(server.simulation.data, name), getattr(data, name), err_msg=name)
    assert answer.objects["arm"].angles == data.qpos.tolist()


def test_a_quaternion_off_unit_length_is_normalised_and_counted_like_a_clamped_value():
    sim = MujocoSimulation.from_xml_string(ARM)
    sim.apply(_control([0.3, 0.0, 0.5, 2.0, 0.0, 0.0, 0.0]))
    assert sim.data.mocap_quat[0].tolist() == [1.0, 0.0, 0.0, 0.0]
    assert sim.clamped_values == 1
    half = math.sqrt(0.5)
    sim.apply(_control([0.3, 0.0, 0.5, half, 0.0, half, 0.0]))  # unit length up to rounding: not counted
    assert sim.clamped_values == 1


def test_the_scatter_takes_a_quaternions_length_as_math_hypot_does_bit_for_bit():
    rng = np.random.default_rng(5)
    unit = rng.normal(size=(2000, 4))
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    magnitudes = 10.0 ** rng.integers(-300, 300, (2000, 1))  # subnormal ones follow Python 3.11 (quaternion_length.hpp)
    edges = [[0.0, 0.0, 0.0, 0.0], [math.inf, math.nan, 0.0, 0.0], [math.nan, 1.0, 0.0, 0.0], [1e308, 1e308, 0.0, 1.0]]
    quaternions = np.concatenate([rng.uniform(-1.0, 1.0, (2000, 4)), unit, rng.normal(size=(2000, 4)) * magnitudes])
    for q in quaternions.tolist() + edges:
        length = _native.quaternion_length(*q)
        assert length == math.hypot(*q) or (math.isnan(length) and math.isnan(math.hypot(*q))), q


def test_a_zero_quaternion_is_refused_in_one_line_and_nothing_of_the_control_is_applied():
    server = SimulationServer(MujocoSimulation.from_xml_string(ARM))
    server.handle(_control([0.3, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0], 0.5))
    data = server.simulation.data
    before = {name: getattr(data, name).copy() for name in ("ctrl", "mocap_pos", "mocap_quat", "qpos")}
    answer = server.handle(_control([0.1, 0.1, 0.1, 0.0, 0.0, 0.0, 0.0], -0.5))
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.CONTROL_MISMATCH
    assert answer.text == ("control does not match the handshake: the orientation (qw, qx, qy, qz) of mocap body "
                           "'target' is zero, which is no rotation; (1, 0, 0, 0) keeps the world's")
    for name, values in before.items():
        np.testing.assert_array_equal(getattr(data, name), values, err_msg=name)
    assert isinstance(server.handle(_control([0.3, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0])), SensorMessage)


def test_an_actuator_named_like_a_pose_control_leaves_the_pose_out_and_says_so():
    xml = ARM.replace('<motor name="wrist"', '<motor name="x" joint="wrist"/><motor name="wrist"').replace(
        '<body name="target" mocap="true" pos="0.3 0 0.5">',
        '<body name="target" mocap="true" pos="0.3 0 0.5"><body name="pad"><joint name="slide" type="slide"/>'
        '<geom size="0.01" contype="0" conaffinity="0"/></body>')
    xml = xml.replace('<motor name="x" joint="wrist"/>', '<motor name="x" joint="slide"/>')
    sim = MujocoSimulation.from_xml_string(xml)
    assert sim.handshake().objects["target"].controls == ["x"]
    assert ("mocap body 'target' has actuators named x, the names of its pose controls: its pose is not a control"
            in sim.unmapped)


def test_batched_worlds_move_each_worlds_mocap_body_as_a_single_scene_does():
    batch = WorldBatch(MujocoSimulation.from_xml_string(ARM), 2)
    singles = [MujocoSimulation.from_xml_string(ARM) for _ in range(2)]
    rng = np.random.default_rng(3)
    sensors, times = np.zeros((2, batch.sensor_width)), np.zeros(2)
    for _ in range(5):
        poses = [_pose(rng) + [0.2], _pose(rng) + [-0.2]]  # the Control arrays put objects in name order
        rows = [[wrist] + pose for *pose, wrist in poses]
        run_batch(batch, WorldControl(worlds=2, controls=np.array(rows, dtype=float).ravel(), steps=2,
                                      resets=np.zeros(0, dtype=np.int64), qpos=np.zeros(0), qvel=np.zeros(0)),
                  sensors, times)
        for single, (*pose, wrist) in zip(singles, poses):
            single.apply(_control(pose, wrist))
            single.step(2)
    for world, single in zip(batch.worlds, singles):
        np.testing.assert_array_equal(world.data.qpos, single.data.qpos)
        np.testing.assert_array_equal(world.data.mocap_quat, single.data.mocap_quat)


def test_a_sessions_controls_start_at_the_mocap_bodys_pose(tmp_path):
    from coupler.controller.session import Session
    from peers import coupler_server, free_tcp_address

    scene = tmp_path / "arm.xml"
    scene.write_text(ARM.replace('pos="0.3 0 0.5">', 'pos="0.3 0 0.5" quat="0.9238795 0 0.3826834 0">', 1))
    address = free_tcp_address()
    with coupler_server(address, "--scene", str(scene)), Session(address, timeout=5.0) as session:
        assert session.handshake.supports("mocap")
        controls = session.controls()
        assert controls["target"][:3].tolist() == [0.3, 0.0, 0.5]
        expected = np.array([0.9238795, 0.0, 0.3826834, 0.0]) / math.hypot(0.9238795, 0.3826834)
        np.testing.assert_allclose(controls["target"][3:], expected, atol=1e-12)
        readings = session.step(controls)
        assert readings.object_sensor("target", ValueType.POSITION).tolist() == [0.3, 0.0, 0.5]


def test_a_zero_quaternion_in_one_world_is_refused_before_any_world_moves():
    batch = WorldBatch(MujocoSimulation.from_xml_string(ARM), 2)
    rows = [[0.0, 0.2, 0.0, 0.6, 1.0, 0.0, 0.0, 0.0], [0.0, 0.2, 0.0, 0.6, 0.0, 0.0, 0.0, 0.0]]
    sensors, times = np.zeros((2, batch.sensor_width)), np.zeros(2)
    with pytest.raises(Exception, match="mocap body 'target' in world 1 is zero") as refused:
        run_batch(batch, WorldControl(worlds=2, controls=np.array(rows).ravel(), steps=1,
                                      resets=np.zeros(0, dtype=np.int64), qpos=np.zeros(0), qvel=np.zeros(0)),
                  sensors, times)
    assert refused.value.code == ErrorCode.CONTROL_MISMATCH
    assert [world.data.time for world in batch.worlds] == [0.0, 0.0]
    assert batch.worlds[0].data.mocap_pos[0].tolist() == [0.3, 0.0, 0.5]


def test_a_zero_quaternion_in_a_world_reset_instead_of_stepped_is_not_refused():
    batch = WorldBatch(MujocoSimulation.from_xml_string(ARM), 2)
    rows = [[0.0, 0.2, 0.0, 0.6, 1.0, 0.0, 0.0, 0.0], [0.0, 0.2, 0.0, 0.6, 0.0, 0.0, 0.0, 0.0]]
    sensors, times = np.zeros((2, batch.sensor_width)), np.zeros(2)
    run_batch(batch, WorldControl(worlds=2, controls=np.array(rows).ravel(), steps=1,
                                  resets=np.array([1], dtype=np.int64), qpos=np.zeros(0), qvel=np.zeros(0)),
              sensors, times)
    assert [world.data.time for world in batch.worlds] == [batch.first.model.opt.timestep, 0.0]
    assert batch.worlds[0].data.mocap_pos[0].tolist() == [0.2, 0.0, 0.6]
    assert batch.worlds[1].data.mocap_pos[0].tolist() == [0.3, 0.0, 0.5]  # reset to its start
