"""The frames a publishing server streams to its subscribers, and how a subscriber reads them (the publisher
writing them is C++: `coupler::FramePublisher`).

Every message is one ZeroMQ frame: the topic (the recording's channel:
`/coupler/requests/Control`, `/coupler/answers/Sensor`, ...,
`/coupler/mujoco_state`, so a subscriber filters by prefix), a NUL byte, a
32-byte header and the payload (the protocol frame as sent, or a serialized
`coupler.record.v1.MujocoState`). One frame rather than three because a
multi-part send costs the serving thread several times as much. The header holds the publisher's sequence
number over all topics, the sequence number within the topic (a subscriber
filtering topics finds its gaps with it), the wall clock and the simulated
time (-1 where a frame carries none), in nanoseconds. Sequence numbers
start at 0.

Two more topics are not frames of the protocol: `/coupler/scene` (one
frame: topic, NUL, then each part as its length, little-endian uint64, and
its bytes) carries the scene's metadata (JSON) and attachments (the model),
sent to each new connection before anything else, so a late subscriber
writes a recording that still replays and renders; `/coupler/end` says the server has stopped, with
the number of frame messages sent, so a recorder knows it has everything
and counts what it lost at the end too.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass

from coupler.record.channels import ANSWERS, KINDS, REQUESTS, STATE_TOPIC, frame_kind

SCENE_TOPIC = b"/coupler/scene"
END_TOPIC = b"/coupler/end"
FRAME_PREFIX = b"/coupler/"  # what a subscriber to everything subscribes to
HEADER = struct.Struct("<QQqq")  # sequence, sequence within the topic, wall ns, simulated ns (-1: none)
END = struct.Struct("<Q")  # how many frame messages were sent
_PART_LENGTH = struct.Struct("<Q")  # before each part of a scene message
NO_TIME = -1

_REQUEST_TOPICS = {name: (REQUESTS + name).encode() for name in [*KINDS.values(), "Unknown"]}
_ANSWER_TOPICS = {name: (ANSWERS + name).encode() for name in [*KINDS.values(), "Unknown"]}
STATE = STATE_TOPIC.encode()


def frame_topic(request: bool, frame: bytes) -> bytes:
    """The topic of a protocol frame: its kind's (`frame_kind`), among requests or answers."""
    return (_REQUEST_TOPICS if request else _ANSWER_TOPICS)[frame_kind(frame)]


def topic_of(parts: list[bytes]) -> bytes:
    """The topic of a received message, whatever its kind."""
    return parts[0].partition(b"\0")[0]


@dataclass(frozen=True)
class Streamed:
    """One message as a subscriber receives it."""

    topic: str
    sequence: int
    topic_sequence: int
    wall_ns: int
    simulated_ns: int  # NO_TIME when the frame carries no simulated time
    payload: bytes


class StreamError(ValueError):
    """A message that is not in the publisher's format (another program publishes there)."""


def parse(parts: list[bytes]) -> Streamed:
    """A frame message (topic, NUL, header, payload in one part); StreamError for anything else."""
    topic, separator, rest = parts[0].partition(b"\0")
    if len(parts) != 1 or not separator or len(rest) < HEADER.size:
        raise StreamError(f"a message of {len(parts)} parts and {len(parts[0])} bytes, not one part of topic, NUL, "
                          f"{HEADER.size}-byte header and payload")
    sequence, topic_sequence, wall_ns, simulated_ns = HEADER.unpack_from(rest)
    try:
        name = topic.decode("ascii")
    except UnicodeDecodeError:
        raise StreamError("a topic that is not ASCII") from None
    return Streamed(name, sequence, topic_sequence, wall_ns, simulated_ns, rest[HEADER.size:])


def scene_message(metadata: dict[str, dict[str, str]], attachments: dict[str, tuple[str, bytes]]) -> list[bytes]:
    """The parts of a scene message: topic, metadata as JSON, then name, media type and data of each attachment."""
    parts = [SCENE_TOPIC, json.dumps(metadata, sort_keys=True).encode()]
    for name, (media_type, data) in attachments.items():
        parts += [name.encode(), media_type.encode(), data]
    return parts


def _unpacked_scene(frame: bytes) -> list[bytes]:
    """The parts of a one-frame scene message: its topic, then each part its length gives."""
    topic, _, rest = frame.partition(b"\0")
    parts = [topic]
    view = memoryview(rest)
    at = 0
    while at < len(view):
        if at + _PART_LENGTH.size > len(view):
            raise StreamError("a scene message cut short in a part's length")
        (length,) = _PART_LENGTH.unpack_from(view, at)
        at += _PART_LENGTH.size
        if length > len(view) - at:
            raise StreamError(f"a scene message whose part of {length} bytes runs past its end")
        parts.append(bytes(view[at:at + length]))
        at += length
    return parts


def parse_scene(parts: list[bytes]) -> tuple[dict[str, dict[str, str]], dict[str, tuple[str, bytes]]]:
    """Metadata and attachments of a scene message (the one frame the publisher sends, or its parts as
    `scene_message` gives them); StreamError when it is malformed."""
    if len(parts) == 1:
        parts = _unpacked_scene(parts[0])
    if len(parts) < 2 or (len(parts) - 2) % 3:
        raise StreamError(f"a scene message of {len(parts)} parts")
    try:
        metadata = json.loads(parts[1])
        if not isinstance(metadata, dict) or not all(
                isinstance(v, dict) and all(isinstance(x, str) for x in v.values()) for v in metadata.values()):
            raise StreamError("scene metadata that is not a map of maps of text")
        attachments = {parts[i].decode(): (parts[i + 1].decode(), parts[i + 2]) for i in range(2, len(parts), 3)}
    except (ValueError, UnicodeDecodeError) as error:
        raise StreamError(f"unreadable scene message: {error}") from None
    return metadata, attachments


def parse_end(parts: list[bytes]) -> int:
    """How many frame messages the publisher sent in all."""
    _, _, rest = parts[0].partition(b"\0")
    if len(parts) != 1 or len(rest) != END.size:
        raise StreamError(f"an end message of {len(parts)} parts")
    return END.unpack(rest)[0]
