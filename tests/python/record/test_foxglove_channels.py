"""A recording opens in Foxglove's 3D panel: it carries the geoms as one `foxglove.SceneUpdate` and every
body's pose after each step as `foxglove.FrameTransforms`, and with `--log-time sim` its log time is the
simulated time; read here with the `mcap` library alone, compared with stepping the model in MuJoCo."""

import signal

import mujoco
import numpy as np
import pytest
from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate
from mcap.reader import make_reader
from mcap_protobuf.decoder import DecoderFactory

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.controller.session import Session
from coupler.serve.serve_process import ServeProcess
from peers import address_for

# An arm on a hinge (a `fromto` capsule) over a box on a plane, with a tetrahedron mesh on the arm.
MODEL = """<mujoco>
  <option timestep="0.005"/>
  <asset><mesh name="tip" vertex="0 0 0  0.05 0 0  0 0.05 0  0 0 0.05"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <geom name="stand" type="box" pos="0 0 0.1" size="0.05 0.05 0.1"/>
    <body name="arm" pos="0 0 0.25">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0.1" size="0.02"/>
      <geom type="mesh" mesh="tip" pos="0.3 0 0.1"/>
    </body>
  </worldbody>
  <actuator><motor name="shoulder_motor" joint="shoulder"/></actuator>
</mujoco>
"""
STEPS = 30
TORQUES = [0.4 * ((i % 5) - 2) for i in range(STEPS)]


@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    """(topic, schema name, message) of a recording of the arm driven by TORQUES, on simulated log time."""
    return _messages(_record(tmp_path_factory.mktemp("foxglove"), "--log-time", "sim"))


def _record(folder, *flags: str):
    scene = folder / "arm.xml"
    scene.write_text(MODEL)
    recording = folder / "arm.mcap"
    address = address_for("ipc", folder)
    with ServeProcess(["--scene", str(scene), "--record", str(recording), *flags], address=address) as server:
        with Session(address, timeout=5.0) as session:
            controls = session.controls()
            for torque in TORQUES:
                controls["arm"][:] = torque
                session.step(controls)
        server.send_signal(signal.SIGINT)
        server.wait(30)
    assert recording.is_file(), server.output()
    return recording


def _messages(recording):
    """Every message, decoded from the schema embedded in the file (as Foxglove does), its type checked."""
    with open(recording, "rb") as file:
        read = make_reader(file, decoder_factories=[DecoderFactory()]).iter_decoded_messages()
        messages = []
        for schema, channel, message, decoded in read:
            assert decoded.DESCRIPTOR.full_name == schema.name
            messages.append((channel.topic, schema.name, message))
        return messages


def test_every_body_pose_is_recorded_after_each_step_as_mujoco_computes_it(messages):
    schemas = {topic: schema for topic, schema, _ in messages}
    assert schemas["/coupler/foxglove/scene"] == "foxglove.SceneUpdate"
    assert schemas["/coupler/foxglove/transforms"] == "foxglove.FrameTransforms"
    transforms = [FrameTransforms.FromString(m.data) for topic, _, m in messages
                  if topic == "/coupler/foxglove/transforms"]
    assert len(transforms) == STEPS

    model = mujoco.MjModel.from_xml_string(MODEL)
    data = mujoco.MjData(model)
    for step, torque in enumerate(TORQUES):
        data.ctrl[:] = torque
        mujoco.mj_step(model, data)
        mujoco.mj_kinematics(model, data)  # mj_step leaves xpos and xquat at the positions before its integration
        (arm,) = transforms[step].transforms
        assert (arm.parent_frame_id, arm.child_frame_id) == ("world", "arm")
        position = [arm.translation.x, arm.translation.y, arm.translation.z]
        wxyz = [arm.rotation.w, arm.rotation.x, arm.rotation.y, arm.rotation.z]
        np.testing.assert_array_equal(position, data.xpos[1])
        np.testing.assert_array_equal(wxyz, data.xquat[1])
    assert abs(data.xquat[1][2]) > 0.01  # the arm has turned: the poses compared are not the start's


def test_with_log_time_sim_the_log_time_is_the_simulated_time_from_the_first_message(messages):
    states = [(m.log_time, MujocoState.FromString(m.data).time) for topic, _, m in messages
              if topic == "/coupler/mujoco_state"]
    first = messages[0][2].log_time
    assert len(states) == STEPS
    for log_time, time in states:
        assert abs(log_time - first - time * 1e9) <= 1
    for topic, _, m in messages:  # Foxglove looks transforms up by their own stamps: on the same clock
        if topic == "/coupler/foxglove/transforms":
            assert FrameTransforms.FromString(m.data).transforms[0].timestamp.ToNanoseconds() == m.log_time


def test_the_scene_update_draws_each_geom_in_its_body_frame(messages):
    (update,) = [SceneUpdate.FromString(m.data) for topic, _, m in messages if topic == "/coupler/foxglove/scene"]
    entities = {entity.frame_id: entity for entity in update.entities}
    assert set(entities) == {"world", "arm"}
    world, arm = entities["world"], entities["arm"]
    assert [round(c.size.z, 4) for c in world.cubes] == [0.001, 0.2]  # the plane as a thin cube, then the box
    (cylinder,) = arm.cylinders  # the capsule: a cylinder between two spheres
    assert len(arm.spheres) == 2 and cylinder.size.z == pytest.approx(np.hypot(0.3, 0.1))
    (tip,) = arm.triangles
    assert len(tip.points) == 4 and len(tip.indices) == 12
