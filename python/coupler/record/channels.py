"""The channels of a coupler recording: one per message kind and direction, the MuJoCo state, and what
Foxglove's 3D panel draws of it.

Topics read `/coupler/requests/Control`, `/coupler/answers/Sensor`, ...,
`/coupler/mujoco_state`, `/coupler/foxglove/scene` (the geoms, a `foxglove.SceneUpdate`) and
`/coupler/foxglove/transforms` (every body's pose, `foxglove.FrameTransforms`). Every channel carries
protobuf with its schema embedded as a FileDescriptorSet (MCAP's protobuf profile), so the `mcap` reader
and Foxglove decode it without coupler.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import FileDescriptor

from foxglove_schemas_protobuf import FrameTransforms_pb2, SceneUpdate_pb2

from coupler._proto import coupler_pb2, coupler_record_pb2
from coupler.wire.codec import message_kind
from coupler.wire.messages import MessageType

REQUESTS = "/coupler/requests/"
ANSWERS = "/coupler/answers/"
STATE_TOPIC = "/coupler/mujoco_state"
SCENE_UPDATE_TOPIC = "/coupler/foxglove/scene"
TRANSFORMS_TOPIC = "/coupler/foxglove/transforms"

# MessageType value -> the message name (HandshakeInit, Control, ...), as in coupler.proto.
KINDS: dict[int, str] = {kind.value: kind.name.title().replace("_", "") for kind in MessageType}
REQUEST_KINDS = ("HandshakeInit", "Control", "SensorRequest", "Reset", "Error")
ANSWER_KINDS = ("Handshake", "Sensor", "Reset", "Error")
STATE_SCHEMA = coupler_record_pb2.MujocoState.DESCRIPTOR.full_name


@dataclass(frozen=True)
class Channel:
    topic: str
    schema_name: str  # the protobuf message's full name
    file: FileDescriptor


def frame_kind(frame: bytes) -> str:
    """The kind of a protocol frame (Control, Sensor, ...), read from its messageType field without decoding the
    rest; "Unknown" for a frame of no known kind."""
    kind = message_kind(frame)
    return "Unknown" if kind is None else KINDS[kind]


def message_class(kind: str) -> type:
    """The generated protobuf class of a message kind."""
    return getattr(coupler_pb2, f"{kind}Message")


def all_channels() -> list[Channel]:
    channels = [Channel(REQUESTS + kind, message_class(kind).DESCRIPTOR.full_name, coupler_pb2.DESCRIPTOR)
                for kind in REQUEST_KINDS]
    channels += [Channel(ANSWERS + kind, message_class(kind).DESCRIPTOR.full_name, coupler_pb2.DESCRIPTOR)
                 for kind in ANSWER_KINDS]
    channels.append(Channel(STATE_TOPIC, STATE_SCHEMA, coupler_record_pb2.DESCRIPTOR))
    channels.append(Channel(SCENE_UPDATE_TOPIC, SceneUpdate_pb2.SceneUpdate.DESCRIPTOR.full_name,
                            SceneUpdate_pb2.DESCRIPTOR))
    channels.append(Channel(TRANSFORMS_TOPIC, FrameTransforms_pb2.FrameTransforms.DESCRIPTOR.full_name,
                            FrameTransforms_pb2.DESCRIPTOR))
    return channels


def descriptor_set(file: FileDescriptor) -> bytes:
    """The serialized FileDescriptorSet of `file` and its imports, as MCAP's protobuf profile embeds it."""
    files = descriptor_pb2.FileDescriptorSet()
    seen: set[str] = set()

    def add(f: FileDescriptor) -> None:
        if f.name in seen:
            return
        seen.add(f.name)
        for dependency in f.dependencies:
            add(dependency)
        f.CopyToProto(files.file.add())

    add(file)
    return files.SerializeToString()
