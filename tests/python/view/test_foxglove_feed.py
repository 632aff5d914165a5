"""What `coupler view --foxglove` sends Foxglove of a server's stream: every frame and state on its topic as
published, the geoms once a scene arrives, and the bodies' poses of world 0's newest state, in Foxglove's
schemas, equal to MuJoCo's xpos and xquat."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np
from foxglove_schemas_protobuf.FrameTransforms_pb2 import FrameTransforms
from foxglove_schemas_protobuf.SceneUpdate_pb2 import SceneUpdate

from coupler.record.frame_stream import HEADER, NO_TIME, STATE, frame_topic, scene_message
from coupler.record.scene_record import scene_attachments
from coupler.record.world_states import encode_world_state
from coupler.view.foxglove_feed import FoxgloveFeed
from coupler.wire.codec import encode
from coupler.wire.messages import ControlMessage, ObjectControl

ARM = """
<mujoco>
  <worldbody>
    <body name="upper" pos="0 0 1"><joint name="shoulder" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.03"/>
      <body name="lower" pos="0.4 0 0"><joint name="elbow" axis="0 1 0"/><geom type="box" size="0.1 0.02 0.02"/></body>
    </body>
  </worldbody>
  <actuator><motor joint="shoulder"/><motor joint="elbow"/></actuator>
</mujoco>
"""
SCENE_NS = 5_000_000_000


@dataclass
class _Scene:
    model: mujoco.MjModel
    data: mujoco.MjData


def _streamed(topic: bytes, payload: bytes, wall_ns: int, simulated_ns: int = NO_TIME) -> list[bytes]:
    return [topic + b"\0" + HEADER.pack(0, 0, wall_ns, simulated_ns) + payload]


def _fed() -> tuple[FoxgloveFeed, _Scene, list]:
    model = mujoco.MjModel.from_xml_string(ARM)
    scene = _Scene(model, mujoco.MjData(model))
    feed = FoxgloveFeed(wall_ns=lambda: SCENE_NS)
    sent = feed.take(scene_message({"coupler.scene": {"scene": "arm"}}, scene_attachments(scene)))
    return feed, scene, sent


def _state(scene: _Scene, qpos: list[float], world: int = 0) -> bytes:
    scene.data.qpos[:] = qpos
    return encode_world_state(world, scene.data, 7)


def test_a_scene_is_sent_as_the_geoms_of_each_body_in_its_frame():
    feed, _, sent = _fed()
    assert [(m.topic, m.log_time) for m in sent] == [("/coupler/foxglove/scene", SCENE_NS)]
    update = SceneUpdate.FromString(sent[0].payload)
    assert {e.frame_id: (len(e.cylinders), len(e.spheres), len(e.cubes)) for e in update.entities} == {
        "upper": (1, 2, 0), "lower": (0, 0, 1)}
    assert feed.scene_update == sent[0].payload


def test_frames_and_states_go_on_their_topics_unchanged_at_the_wall_time_they_were_published():
    feed, scene, _ = _fed()
    control = encode(ControlMessage(objects={"arm": ObjectControl([0.1, 0.2])}))
    state = _state(scene, [0.3, -0.2])
    sent = [m for parts in (_streamed(frame_topic(True, control), control, 11), _streamed(STATE, state, 12, 2_000_000))
            for m in feed.take(parts)]
    assert [(m.topic, m.payload, m.log_time) for m in sent] == [("/coupler/requests/Control", control, 11),
                                                                ("/coupler/mujoco_state", state, 12)]


def test_the_poses_are_those_of_world_0s_newest_state_as_mujoco_computes_them():
    feed, scene, _ = _fed()
    feed.take(_streamed(STATE, _state(scene, [0.1, 0.1]), 20))
    feed.take(_streamed(STATE, _state(scene, [0.6, -0.9]), 21))
    feed.take(_streamed(STATE, _state(scene, [2.0, 2.0], world=1), 22))
    poses = feed.poses()
    assert (poses.topic, poses.log_time) == ("/coupler/foxglove/transforms", 21)
    data = mujoco.MjData(scene.model)
    data.qpos[:] = [0.6, -0.9]
    mujoco.mj_kinematics(scene.model, data)
    transforms = FrameTransforms.FromString(poses.payload).transforms
    assert [(t.parent_frame_id, t.child_frame_id) for t in transforms] == [("world", "upper"), ("world", "lower")]
    for body, transform in enumerate(transforms, start=1):
        t, r = transform.translation, transform.rotation
        np.testing.assert_array_equal([t.x, t.y, t.z], data.xpos[body])
        np.testing.assert_array_equal([r.w, r.x, r.y, r.z], data.xquat[body])
    assert feed.poses() is None  # nothing newer came


def test_a_message_on_no_known_topic_is_not_passed_on():
    feed, _, _ = _fed()
    assert feed.take(_streamed(b"/coupler/somewhere", b"x", 1)) == []
    assert feed.take([b"not a frame of the stream"]) == []
    assert feed.ignored == 2


def test_the_server_s_end_is_noted_and_nothing_is_sent_for_it():
    feed, _, _ = _fed()
    assert feed.take([b"/coupler/end\0" + (5).to_bytes(8, "little")]) == []
    assert feed.ended
