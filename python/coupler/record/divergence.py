"""Where two protocol frames differ: the first field, named by its path, with both values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import DecodeError

from coupler.record.channels import frame_kind, message_class


@dataclass(frozen=True)
class Difference:
    object: str  # the object the field belongs to, or "" for a field of the message itself
    field: str  # path of the field, e.g. objects.arm.sensors.joint2.sensor[0].angle
    recorded: str
    replayed: str


def _as_dict(frame: bytes) -> dict[str, Any]:
    kind = frame_kind(frame)
    if kind == "Unknown":
        raise DecodeError("a frame of no known message type")
    message = message_class(kind).FromString(frame)
    return MessageToDict(message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def _first(recorded: Any, replayed: Any, path: str) -> tuple[str, Any, Any] | None:
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in sorted(set(recorded) | set(replayed)):
            found = _first(recorded.get(key, "(absent)"), replayed.get(key, "(absent)"), f"{path}.{key}" if path else key)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        if len(recorded) != len(replayed):
            return f"{path} (length)", len(recorded), len(replayed)
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            found = _first(a, b, f"{path}[{i}]")
            if found:
                return found
        return None
    if recorded != replayed or repr(recorded) != repr(replayed):
        return path, recorded, replayed
    return None


def first_difference(recorded: bytes, replayed: bytes) -> Difference | None:
    """The first field in which two frames differ; None when they are the same bytes."""
    if recorded == replayed:
        return None
    try:
        found = _first(_as_dict(recorded), _as_dict(replayed), "")
    except DecodeError as error:
        return Difference("", "frame", f"{len(recorded)} bytes", f"{len(replayed)} bytes ({error})")
    if found is None:  # same values, different encoding (field order, -0.0 against 0.0, unknown fields)
        return Difference("", "encoding", recorded.hex()[:64], replayed.hex()[:64])
    path, a, b = found
    parts = path.split(".")
    obj = parts[1] if len(parts) > 1 and parts[0] == "objects" else ""
    return Difference(obj, path, repr(a), repr(b))
