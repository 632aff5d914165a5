"""What `coupler view --foxglove` sends Foxglove of a publishing server's stream: a recording's channels, live.

Every frame and MuJoCo state goes out on its topic as the server published it
(`/coupler/requests/Control`, `/coupler/answers/Sensor`, `/coupler/mujoco_state`, ...,
the payload unchanged), stamped with the wall clock the server published it
at. What Foxglove's 3D panel draws is derived here, from the scene's model and
the states, as the recorder derives it (`coupler.record.foxglove_scene`): the
geoms as one `foxglove.SceneUpdate` on `/coupler/foxglove/scene` when a scene
arrives (`scene_update` keeps it for each new subscriber), and every body's
pose as `foxglove.FrameTransforms` on `/coupler/foxglove/transforms` for the
newest state of world 0 (`poses`, called once a frame: the panel draws no
more). The server publishes nothing more for Foxglove and never waits for it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from coupler._proto import coupler_record_pb2
from coupler.record.channels import SCENE_UPDATE_TOPIC, STATE_TOPIC, TRANSFORMS_TOPIC, all_channels
from coupler.record.foxglove_scene import BodyTransforms, scene_update
from coupler.record.frame_stream import END_TOPIC, SCENE_TOPIC, StreamError, parse, parse_scene, topic_of
from coupler.record.mocap_poses import MocapMismatch, MocapPoses, mocap_poses
from coupler.record.scene_record import MODEL_BINARY

log = logging.getLogger(__name__)

# The topics Foxglove is told of, each with its schema; a message on another topic is not passed on.
TOPICS = frozenset(channel.topic for channel in all_channels())


@dataclass(frozen=True)
class FeedMessage:
    topic: str
    payload: bytes  # serialized protobuf, in the schema of the topic's channel
    log_time: int  # ns since the epoch


class FoxgloveFeed:
    """Turns the messages of a publishing server's stream into Foxglove's (`take`, `poses`)."""

    def __init__(self, wall_ns=time.time_ns) -> None:
        self.scene_update: bytes | None = None  # the current scene's geoms, for a subscriber that comes later
        self.ended = False  # the server said it stopped
        self.ignored = 0  # messages not passed on (not in the publisher's format, or of no known topic)
        self._wall_ns = wall_ns
        self._binary: bytes | None = None
        self._transforms: BodyTransforms | None = None
        # World 0's newest qpos and mocap poses not yet posed, its log time.
        self._newest: tuple[Sequence[float], MocapPoses | None, int] | None = None

    def take(self, parts: list[bytes]) -> list[FeedMessage]:
        """What to send for one message of the stream (its parts as received)."""
        topic = topic_of(parts)
        if topic == SCENE_TOPIC:
            return self._scene(parts)
        if topic == END_TOPIC:
            self.ended = True
            return []
        try:
            message = parse(parts)
        except StreamError:
            self.ignored += 1
            return []
        if message.topic not in TOPICS:
            self.ignored += 1
            return []
        if message.topic == STATE_TOPIC:
            self._keep_newest(message.payload, message.wall_ns)
        return [FeedMessage(message.topic, message.payload, message.wall_ns)]

    def poses(self) -> FeedMessage | None:
        """Every body's pose in world 0's newest state since the last call; None when there is none (no state
        came, the state is another world's or does not fit the scene's model)."""
        newest, self._newest = self._newest, None
        if newest is None or self._transforms is None:
            return None
        qpos, mocap, log_time = newest
        return FeedMessage(TRANSFORMS_TOPIC, self._transforms.encode(qpos, log_time, mocap), log_time)

    def _keep_newest(self, payload: bytes, log_time: int) -> None:
        if self._transforms is None:
            return
        try:
            state = coupler_record_pb2.MujocoState.FromString(payload)
        except DecodeError:
            return
        if state.world or len(state.qpos) != self._transforms.model.nq:
            return  # the 3D scene is world 0's: the worlds of a batch would draw over each other
        try:
            mocap = mocap_poses(state, self._transforms.model)
        except MocapMismatch:
            return  # another scene's state, as one of other positions is
        self._newest = (state.qpos, mocap, log_time)

    def _scene(self, parts: list[bytes]) -> list[FeedMessage]:
        import mujoco

        try:
            _, attachments = parse_scene(parts)
        except StreamError:
            self.ignored += 1
            return []
        if MODEL_BINARY not in attachments:
            return []  # not a MuJoCo scene: nothing to draw
        binary = attachments[MODEL_BINARY][1]
        if binary == self._binary:
            return []  # the same scene, sent again after a reconnection
        try:
            model = mujoco.MjModel.from_binary_path(MODEL_BINARY, {MODEL_BINARY: binary})
        except ValueError as error:
            log.warning("the server's model does not load here (%s): no 3D scene for Foxglove",
                        " ".join(str(error).split())[:300])
            return []
        self._binary = binary
        self._transforms = BodyTransforms(model)
        self._newest = None  # states before a new scene are of the old one
        now = self._wall_ns()
        self.scene_update = scene_update(model, now)
        return [FeedMessage(SCENE_UPDATE_TOPIC, self.scene_update, now)]
