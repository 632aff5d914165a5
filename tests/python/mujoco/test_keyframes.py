"""Keyframes: `--keyframe NAME|INDEX` starts and resets there, the handshake names them, a Reset asks for one."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from coupler.cli import serve as serve_cli
from coupler.mujoco.simulation import MujocoSimulation
from coupler.mujoco.world_batch import WorldBatch
from coupler.serve.app import ServeOptions
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.errors import Error
from coupler.wire.messages import ControlMessage, ErrorCode, ErrorMessage, HandshakeInitMessage, ObjectControl, ResetMessage
from coupler.wire.world_frames import WorldControl
from batch_steps import run_batch

# An arm whose hand a mocap body holds through a weld, an integrating actuator (it has act), and two keyframes
# that set everything a keyframe sets: qpos, qvel, act, ctrl, mocap_pos, mocap_quat.
ARM = """
<mujoco>
  <worldbody>
    <body name="target" mocap="true" pos="0.3 0 0.5"><geom size="0.01" contype="0" conaffinity="0"/></body>
    <body name="arm" pos="0 0 0.5">
      <joint name="shoulder" axis="0 1 0" damping="0.5"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="hand" pos="0.3 0 0">
        <joint name="wrist" axis="0 1 0" damping="0.5"/>
        <geom size="0.04"/>
      </body>
    </body>
  </worldbody>
  <equality><weld body1="target" body2="hand" solref="0.05 1"/></equality>
  <actuator>
    <intvelocity name="wrist" joint="wrist" kp="5" actrange="-1 1"/>
  </actuator>
  <keyframe>
    <key name="rest" qpos="0 0" ctrl="0" act="0" mpos="0.3 0 0.5" mquat="1 0 0 0"/>
    <key name="raised" qpos="0.4 -0.2" qvel="0.1 0.3" act="0.25" ctrl="0.5" mpos="0.2 0.1 0.6"
         mquat="0.9238795 0 0.3826834 0"/>
  </keyframe>
</mujoco>
"""
RAISED = 1
STATE = ("qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat")


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("keyframes") / "arm.xml"
    path.write_text(ARM)
    return path


def _direct(path, key: int) -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_path(str(path))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, key)
    return model, data


def _assert_same_state(data: mujoco.MjData, expected: mujoco.MjData) -> None:
    for name in (*STATE, "time"):
        np.testing.assert_array_equal(getattr(data, name), getattr(expected, name), err_msg=name)


def test_the_handshake_names_the_models_keyframes_in_index_order(model_file):
    assert MujocoSimulation(model_file).handshake().keyframes == ["rest", "raised"]


def test_a_keyframe_named_on_the_command_line_is_the_start_state_and_the_run_equals_mj_step(model_file):
    sim = MujocoSimulation(model_file, keyframe="raised")
    model, expected = _direct(model_file, RAISED)
    _assert_same_state(sim.data, expected)
    sim.apply(ControlMessage(objects={"arm": ObjectControl([0.7])}))
    sim.step(40)
    expected.ctrl[0] = 0.7
    mujoco.mj_step(model, expected, nstep=40)
    _assert_same_state(sim.data, expected)


def test_a_number_names_the_keyframe_of_that_index_when_none_has_it_as_name(model_file):
    assert MujocoSimulation(model_file, keyframe="1").start_keyframe == RAISED


def test_a_reset_returns_to_the_start_keyframe(model_file):
    server = SimulationServer(MujocoSimulation(model_file, keyframe="raised"))
    server.handle(ControlMessage(objects={"arm": ObjectControl([-0.3])}, steps=25))
    assert isinstance(server.handle(ResetMessage()), ResetMessage)
    _assert_same_state(server.simulation.data, _direct(model_file, RAISED)[1])


@pytest.mark.parametrize("request_", [ResetMessage(keyframe="raised"), ResetMessage(keyframe_index=RAISED)],
                         ids=["by name", "by index"])
def test_a_reset_asks_for_a_keyframe(model_file, request_):
    server = SimulationServer(MujocoSimulation(model_file))
    assert isinstance(server.handle(request_), ResetMessage)
    _assert_same_state(server.simulation.data, _direct(model_file, RAISED)[1])


def test_a_reset_to_a_keyframe_takes_the_qpos_given_with_it(model_file):
    server = SimulationServer(MujocoSimulation(model_file))
    server.handle(ResetMessage(qpos=[0.1, 0.2], keyframe="raised"))
    data = server.simulation.data
    assert data.qpos.tolist() == [0.1, 0.2]
    np.testing.assert_array_equal(data.mocap_pos, _direct(model_file, RAISED)[1].mocap_pos)


@pytest.mark.parametrize("request_, named", [(ResetMessage(keyframe="lifted\n"), "no keyframe named 'lifted\\n'"),
                                             (ResetMessage(keyframe_index=2), "no keyframe 2")])
def test_an_unknown_keyframe_is_one_line_listing_the_valid_ones_and_changes_nothing(model_file, request_, named):
    server = SimulationServer(MujocoSimulation(model_file))
    server.handle(HandshakeInitMessage())
    server.handle(ControlMessage(objects={"arm": ObjectControl([0.4])}, steps=10))
    before = {name: getattr(server.simulation.data, name).copy() for name in STATE}
    answer = server.handle(ResetMessage(**vars(request_)))
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.CONTROL_MISMATCH
    assert answer.text == f"Reset: {named}; valid keyframes: 0 'rest', 1 'raised'"
    for name, values in before.items():
        np.testing.assert_array_equal(getattr(server.simulation.data, name), values, err_msg=name)
    assert not isinstance(server.handle(ControlMessage(objects={"arm": ObjectControl([0.4])})), ErrorMessage)


def test_a_reset_naming_a_keyframe_by_name_and_by_index_is_refused(model_file):
    server = SimulationServer(MujocoSimulation(model_file))
    answer = server.handle(ResetMessage(keyframe="rest", keyframe_index=1))
    assert isinstance(answer, ErrorMessage)
    assert answer.text == "a Reset asks for a keyframe by name or by index, not both"


def test_an_unknown_keyframe_flag_is_refused_at_start_up_listing_the_valid_ones(model_file):
    with pytest.raises(Error, match=r"^no keyframe named 'lifted'; valid keyframes: 0 'rest', 1 'raised'$"):
        serve_cli._checked_scene(ServeOptions(scene=str(model_file), keyframe="lifted"))


def test_a_keyframe_for_a_model_without_keyframes_says_it_has_none():
    with pytest.raises(Error, match="no keyframe 0; the model has no keyframes"):
        MujocoSimulation(mujoco.MjModel.from_xml_string("<mujoco/>"), keyframe=0)


def test_every_world_of_a_batch_starts_and_resets_at_the_keyframe(model_file):
    batch = WorldBatch(MujocoSimulation(model_file, keyframe="raised"), 3)
    expected = _direct(model_file, RAISED)[1]
    for world in batch.worlds:
        _assert_same_state(world.data, expected)
    sensors, times = np.zeros((3, batch.sensor_width)), np.zeros(3)
    steps = np.full(3 * batch.control_width, 0.2)
    run_batch(batch, WorldControl(worlds=3, controls=steps, steps=5, resets=np.zeros(0, dtype=np.int64),
                                  qpos=np.zeros(0), qvel=np.zeros(0)), sensors, times)
    run_batch(batch, WorldControl(worlds=3, controls=steps, steps=1, resets=np.array([1], dtype=np.int64),
                                  qpos=np.zeros(0), qvel=np.zeros(0)), sensors, times)
    _assert_same_state(batch.worlds[1].data, expected)
    assert times.tolist()[1] == 0.0 and times[0] > 0.0


def test_a_session_resets_a_server_to_a_keyframe_and_is_told_of_an_unknown_one(model_file):
    from coupler.controller.session import Session
    from coupler.wire.errors import RemoteError
    from peers import coupler_server, free_tcp_address

    address = free_tcp_address()
    with coupler_server(address, "--scene", str(model_file)), Session(address, timeout=5.0) as session:
        assert session.handshake.keyframes == ["rest", "raised"]
        session.reset(keyframe="raised")
        assert session.sensors().angles("arm").tolist() == [0.4, -0.2]
        session.reset(keyframe=0)
        assert session.sensors().angles("arm").tolist() == [0.0, 0.0]
        with pytest.raises(RemoteError, match="valid keyframes: 0 'rest', 1 'raised'"):
            session.reset(keyframe="lifted")
        assert session.sensors().angles("arm").tolist() == [0.0, 0.0]
