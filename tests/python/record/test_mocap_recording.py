"""A recording keeps the mocap bodies' poses: each state holds mjData's mocap_pos and mocap_quat after its step,
served by the C++ hot path (Controls of one step) and by Python (a Control of more steps than the hot path
takes; a batched server's worlds, published by the Python path's publisher), and every reader places the bodies
there: Foxglove's body poses, `coupler render` and the recording's view. A recording made before the poses were
kept still renders, its mocap body where the model puts it."""

from __future__ import annotations

import math
import signal
import sys
import time
from types import SimpleNamespace

import mujoco
import numpy as np
import pytest
import zmq
from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
from mcap.reader import make_reader
from PIL import Image

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.frame_stream import FRAME_PREFIX, SCENE_TOPIC, parse, topic_of
from coupler.record.publisher import FramePublisher
from coupler.record.recording import Recording
from coupler.serve.long_control import LONG_CONTROL_STEPS
from coupler.serve.serve_process import ServeProcess
from coupler.view.recorded_run import RecordedRun
from coupler.wire.codec import encode
from coupler.wire.messages import ControlMessage, HandshakeInitMessage, ObjectControl
from hostile_recordings import messages_file
from peers import address_for, run

TIME_STEP = 0.01
# A red mocap box carrying a green ball (a child body without joints: welded to it), seen from the front.
MODEL = """<mujoco>
  <option timestep="{time_step}"/>
  <visual><global offwidth="64" offheight="48"/></visual>
  <worldbody>
    <light pos="0 -2 3" dir="0 0.5 -1"/>
    <camera name="front" pos="0 -3 0.5" xyaxes="1 0 0 0 0 1"/>
    <body name="target" mocap="true" pos="0 0 0.5">
      <geom type="box" size="0.15 0.15 0.15" rgba="1 0 0 1" contype="0" conaffinity="0"/>
      <body name="tool" pos="0 0 -0.3"><geom size="0.05" rgba="0 1 0 1" contype="0" conaffinity="0"/></body>
    </body>
  </worldbody>
</mujoco>
""".replace("{time_step}", str(TIME_STEP))
LONG = LONG_CONTROL_STEPS + 50  # more steps than the hot path takes: served by Python


def _pose(x: float, turn: float) -> list[float]:
    """At (x, 0, 0.5), turned `turn` radians about z; the quaternion twice unit length, as the server normalises."""
    return [x, 0.0, 0.5, 2 * math.cos(turn / 2), 0.0, 0.0, 2 * math.sin(turn / 2)]


# (pose, steps): the box from the left to the right, turning; one-step Controls on either side of a long one.
CONTROLS = ([(_pose(-0.6 + 0.05 * i, 0.1 * i), 1) for i in range(10)] + [(_pose(0.5, 1.2), LONG)]
            + [(_pose(0.55 + 0.05 * i, 1.3 + 0.1 * i), 1) for i in range(2)])


def _served(folder) -> object:
    scene = folder / "mocap.xml"
    scene.write_text(MODEL)
    recording = folder / "mocap.mcap"
    address = address_for("ipc", folder)
    with ServeProcess(["--scene", str(scene), "--record", str(recording)], address=address) as server:
        with zmq.Context.instance().socket(zmq.REQ) as socket:
            socket.linger = 0
            socket.rcvtimeo = 10_000
            socket.connect(address)
            frames = [encode(HandshakeInitMessage())]
            frames += [encode(ControlMessage({"target": ObjectControl(pose)}, steps)) for pose, steps in CONTROLS]
            for frame in frames:
                socket.send(frame)
                socket.recv()
        server.send_signal(signal.SIGINT)
        server.wait(30)
    assert recording.is_file(), server.output()
    return recording


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    return _served(tmp_path_factory.mktemp("mocap"))


@pytest.fixture(scope="module")
def stepped():
    """Step number -> mjData's (mocap_pos, mocap_quat, body xpos, body xquat) after it, the Controls stepped with
    MuJoCo directly."""
    model = mujoco.MjModel.from_xml_string(MODEL)
    data = mujoco.MjData(model)
    after: dict[int, tuple[np.ndarray, ...]] = {}
    step = 0
    for pose, steps in CONTROLS:
        data.mocap_pos[0] = pose[:3]
        data.mocap_quat[0] = np.array(pose[3:]) / math.hypot(*pose[3:])
        for _ in range(steps):
            mujoco.mj_step(model, data)
            mujoco.mj_kinematics(model, data)  # mj_step leaves xpos and xquat as they were before it
            step += 1
            after[step] = (data.mocap_pos.ravel().copy(), data.mocap_quat.ravel().copy(), data.xpos.copy(),
                           data.xquat.copy())
    return after


def _states(recording) -> list[MujocoState]:
    return [MujocoState.FromString(m.data) for m in Recording(recording) if m.state]


def test_each_recorded_state_holds_the_mocap_pose_mujoco_has_after_its_step(recording, stepped):
    states = _states(recording)
    steps = [state.step for state in states]
    assert 1 in steps and 10 + LONG in steps and len(stepped) in steps  # hot path, long Control, hot path again
    for state in states:
        mocap_pos, mocap_quat, _, _ = stepped[state.step]
        np.testing.assert_array_equal(state.mocap_pos, mocap_pos, err_msg=f"step {state.step}")
        np.testing.assert_array_equal(state.mocap_quat, mocap_quat, err_msg=f"step {state.step}")


def test_foxglove_poses_of_the_mocap_body_and_its_child_follow_it(recording, stepped):
    with open(recording, "rb") as file:
        messages = [(channel.topic, message.data) for _, channel, message in make_reader(file).iter_messages()]
    steps = [MujocoState.FromString(data).step for topic, data in messages if topic == "/coupler/mujoco_state"]
    poses = [FrameTransforms.FromString(data) for topic, data in messages if topic == "/coupler/foxglove/transforms"]
    assert len(poses) == len(steps)
    for step, transforms in zip(steps, poses):
        _, _, xpos, xquat = stepped[step]
        for body, transform in enumerate(transforms.transforms, start=1):  # target, then tool
            translation, rotation = transform.translation, transform.rotation
            np.testing.assert_array_equal([translation.x, translation.y, translation.z], xpos[body])
            np.testing.assert_array_equal([rotation.w, rotation.x, rotation.y, rotation.z], xquat[body])


def test_the_recordings_view_places_the_mocap_body_where_it_was(recording, stepped):
    run_ = RecordedRun(recording)
    for step in (5, 10 + LONG, 12 + LONG):  # one-step Controls before and after the long one, its last step
        shown = run_.at(step * TIME_STEP + 1e-9)
        assert shown.step == step
        np.testing.assert_array_equal(shown.mocap.positions.ravel(), stepped[step][0])
        np.testing.assert_array_equal(shown.mocap.quaternions.ravel(), stepped[step][1])


def test_the_python_paths_publisher_sends_the_mocap_poses_of_a_lone_world_and_of_each_batched_world(tmp_path):
    model = mujoco.MjModel.from_xml_string(MODEL)
    worlds = [mujoco.MjData(model) for _ in range(3)]
    for number, data in enumerate(worlds):
        data.mocap_pos[0] = [0.1 * number, 0.2, 0.3]
        data.mocap_quat[0] = [0.0, 0.6, 0.8, 0.0]
    publisher = FramePublisher({"coupler.scene": {"scene": "mocap"}}, {})
    endpoint = publisher.bind(f"ipc://{tmp_path}/pub")
    context = zmq.Context()
    socket = context.socket(zmq.SUB)
    socket.linger = 0
    socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    socket.connect(endpoint)
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        publisher.on_step(SimpleNamespace(data=worlds[0]), 1, time.time())
        publisher.on_step(SimpleNamespace(worlds=SimpleNamespace(worlds=[SimpleNamespace(data=d) for d in worlds])),
                          2, time.time())
        states = []
        while len(states) < 4 and socket.poll(10_000):
            parts = socket.recv_multipart()
            if topic_of(parts) != SCENE_TOPIC:
                states.append(MujocoState.FromString(parse(parts).payload))
    finally:
        socket.close()
        publisher.close()
        context.term()
    assert [(state.step, state.world) for state in states] == [(1, 0), (2, 0), (2, 1), (2, 2)]
    for state, data in zip(states, [worlds[0], *worlds]):
        assert list(state.mocap_pos) == data.mocap_pos.ravel().tolist()
        assert list(state.mocap_quat) == data.mocap_quat.ravel().tolist()


def _red_columns(recording, out) -> list[float]:
    """Where the red box is across each frame rendered (the states after step 1 and after the long Control: 2 frames
    a second), -1 (the left edge) to 1 (the right)."""
    result = run([sys.executable, "-m", "coupler.cli", "render", str(recording), "--out", str(out), "--camera",
                  "front", "--fps", "2", "--end", "2", "--width", "64", "--height", "48"])
    assert result.returncode == 0, result.stdout
    with Image.open(out) as strip:
        pixels = np.asarray(strip.convert("RGB")).astype(int)
    centres = []
    for frame in np.split(pixels, pixels.shape[1] // 64, axis=1):
        red = (frame[:, :, 0] > 100) & (frame[:, :, 0] > frame[:, :, 1] + 80) & (frame[:, :, 0] > frame[:, :, 2] + 80)
        assert red.any()
        centres.append(float(np.nonzero(red)[1].mean()) / 31.5 - 1.0)
    return centres


def test_render_draws_the_mocap_body_where_it_was(recording, tmp_path):
    first, second = _red_columns(recording, tmp_path / "strip.png")
    assert first < -0.2 and second > 0.2  # at x = -0.6 m, then at 0.5 m


def test_a_recording_without_the_mocap_poses_renders_the_body_where_the_model_puts_it(recording, tmp_path):
    recorded = Recording(recording)
    messages = []
    for message in recorded:
        data = message.data
        if message.state:
            state = MujocoState.FromString(data)
            state.ClearField("mocap_pos")
            state.ClearField("mocap_quat")
            data = state.SerializeToString()
        messages.append((message.topic, data))
    older = messages_file(tmp_path / "older.mcap", messages, recorded.attachments)
    first, second = _red_columns(older, tmp_path / "older.png")
    assert abs(first) < 0.1 and abs(second) < 0.1  # at x = 0, where the model puts it
