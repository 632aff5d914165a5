"""Where protobuf's Python runtime (upb) and its C++ runtime differ on the
wire, the Python side made to do what C++ does, so that both codecs write the
same frames and take the same ones.

- Writing: upb sorts a map key after the keys it is a prefix of ("ab" before
  "a"); C++ sorts it first, as a byte-wise comparison does.
- Reading: upb sets a map entry aside among the unknown fields when the
  entry carries a field an entry does not have, or its key or value in
  another wire type; C++ reads the entry, skipping what it does not know.

Both are rare in real frames, so the check is cheap and the work done only
for the frames that need it.
"""

from __future__ import annotations

import functools
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.unknown_fields import UnknownFieldSet

__all__ = ["parse_as_cpp", "serialize", "sets_map_entries_aside", "varint"]


def varint(value: int) -> bytes:
    """A non-negative integer as protobuf's base-128 varint."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _length_delimited(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


@functools.cache
def _map_fields(descriptor: Any) -> tuple[tuple[str, int, bool], ...]:
    """A message type's map fields: name, number, and whether the values are messages."""
    return tuple(
        (f.name, f.number, f.message_type.fields_by_name["value"].message_type is not None)
        for f in sorted(descriptor.fields, key=lambda f: f.number)
        if f.message_type is not None and f.message_type.GetOptions().map_entry
    )


def _has_prefix_keys(proto: Any) -> bool:
    """Whether some map in the message has a key that is a proper prefix of another of its keys."""
    for name, _, message_values in _map_fields(proto.DESCRIPTOR):
        entries = getattr(proto, name)
        # Sorted, a key that is a prefix of others comes right before one of them.
        keys = sorted(entries)
        if any(later.startswith(key) for key, later in zip(keys, keys[1:])):
            return True
        if message_values and any(_has_prefix_keys(value) for value in entries.values()):
            return True
    return False


def _fields_between(proto: Any, below: int, above: int, maps: set[str]) -> bytes:
    """The deterministic bytes of the fields numbered between two maps, none of them a map."""
    part = type(proto)()
    part.CopyFrom(proto)
    for field, _ in proto.ListFields():
        if field.name in maps or not below < field.number < above:
            part.ClearField(field.name)
    return part.SerializeToString(deterministic=True)


def _entries_in_key_order(proto: Any, name: str, number: int, message_values: bool) -> bytes:
    out = bytearray()
    entries = getattr(proto, name)
    for key in sorted(entries):  # code point order, which is the byte order of UTF-8
        if message_values:
            entry = _length_delimited(1, key.encode()) + _length_delimited(2, _serialize_in_key_order(entries[key]))
            out += _length_delimited(number, entry)
        else:
            single = type(proto)()
            getattr(single, name)[key] = entries[key]
            out += single.SerializeToString()
    return bytes(out)


def _serialize_in_key_order(proto: Any) -> bytes:
    """The deterministic frame, map entries in byte order of their keys, written entry by entry."""
    maps = _map_fields(proto.DESCRIPTOR)
    if not maps:
        return proto.SerializeToString(deterministic=True)
    # protobuf writes fields in number order: the other fields go around the maps' entries.
    names = {name for name, _, _ in maps}
    out = bytearray()
    below = 0
    for name, number, message_values in maps:
        out += _fields_between(proto, below, number, names)
        out += _entries_in_key_order(proto, name, number, message_values)
        below = number
    out += _fields_between(proto, below, 1 << 29, names)
    return bytes(out)


def serialize(proto: Any) -> bytes:
    """The frame, map entries sorted by the bytes of their keys, as C++ writes them.

    protobuf's Python runtime (upb) sorts a key after the keys it is a prefix
    of ("ab" before "a"); C++ sorts it first, as a byte-wise comparison does.
    A frame with no such pair of keys is protobuf's own deterministic one,
    the others are written entry by entry.
    """
    if _has_prefix_keys(proto):
        return _serialize_in_key_order(proto)
    return proto.SerializeToString(deterministic=True)


def sets_map_entries_aside(proto: Any) -> bool:
    """Whether upb set a map entry aside among the unknown fields.

    It does so with an entry that carries a field an entry does not have (or
    its key or value in another wire type); C++ reads such an entry, skipping
    what it does not know.
    """
    maps = _map_fields(proto.DESCRIPTOR)
    if not maps:
        return False
    numbers = {number for _, number, _ in maps}
    if any(unknown.field_number in numbers for unknown in UnknownFieldSet(proto)):
        return True
    return any(
        sets_map_entries_aside(value)
        for name, _, message_values in maps
        if message_values
        for value in getattr(proto, name).values()
    )


def _plain_entries(file: Any) -> None:
    for message in file.message_type:
        _plain_entry_types(message)


def _plain_entry_types(message: Any) -> None:
    for nested in message.nested_type:
        nested.options.ClearField("map_entry")
        _plain_entry_types(nested)


@functools.cache
def _entry_list_class(descriptor: Any) -> type:
    """The message type with each map read as the list of entries it is on the wire, in a pool of its own."""
    file = descriptor_pb2.FileDescriptorProto()
    descriptor.file.CopyToProto(file)
    _plain_entries(file)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(descriptor.full_name))


def parse_as_cpp(proto_class: type, frame: bytes) -> Any:
    """The frame parsed as C++ parses it: every map entry read, in wire order, skipping what it does not know.

    For a frame that parses as `proto_class`; raises DecodeError as parsing does.
    """
    entries = _entry_list_class(proto_class.DESCRIPTOR)()
    entries.ParseFromString(frame)
    entries.DiscardUnknownFields()
    proto = proto_class()
    proto.ParseFromString(entries.SerializeToString())
    return proto
