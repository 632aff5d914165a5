"""Frames of the "worlds" extension: one Control for every world of a batched server, and its answer.

A batched server (`coupler serve --worlds N`) announces "worlds" and N in its
handshake. A `WorldControl` carries, world-major, each world's control values
(in the control layout's order) and then one number per control event
(nonzero: on), plus the worlds to reset instead of stepping and the states to
reset them to; the answer is a SensorMessage whose `worldSensors` hold each
world's readings in the sensor layout's order and `worldTimes` each world's
simulated time. Both are ordinary ControlMessage and SensorMessage frames
(fields from 100 up, see proto/coupler.proto), written and read here without
building a message so that thousands of numbers cost one copy: the packed
fields go straight between the frame and NumPy arrays.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from coupler.wire.codec import decode
from coupler.wire.errors import ProtocolError, RemoteError
from coupler.wire.messages import ErrorCode, ErrorMessage, MessageType
from coupler.wire.peer_text import shown
from coupler.wire.protobuf_parity import varint

__all__ = ["WorldControl", "carries_worlds", "encode_world_control", "encode_world_sensors", "read_world_control",
           "read_world_sensors"]

# Field numbers (proto/coupler.proto).
_MESSAGE_TYPE = 1
_SIM_VARS, _SIMULATED_TIME = 4, 1
_STEPS, _WORLDS, _WORLD_CONTROLS, _RESET_WORLDS, _RESET_QPOS, _RESET_QVEL = 100, 101, 102, 103, 104, 105
_WORLD_SENSORS, _WORLD_TIMES = 100, 101
_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5
_DOUBLE = np.dtype("<f8")


@dataclass(frozen=True)
class WorldControl:
    """What a Control for every world asks: arrays as read, their shapes checked by the server."""

    worlds: int  # how many worlds the sender drives: the server's
    controls: np.ndarray  # flat, world-major: per world its control values, then its events; empty: no step
    steps: int  # the Control's steps field (0 means one)
    resets: np.ndarray  # indices of the worlds to reset instead of stepping
    qpos: np.ndarray  # flat: one qpos per reset world, or empty
    qvel: np.ndarray  # flat: one qvel per reset world, or empty


def _packed_doubles(number: int, values: np.ndarray) -> bytes:
    if values.size == 0:
        return b""
    payload = np.ascontiguousarray(values, dtype=_DOUBLE).tobytes()
    return varint(number << 3 | _LENGTH) + varint(len(payload)) + payload


def _readvarint(frame: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(frame) or shift > 63:
            raise ProtocolError("malformed frame: a varint runs past the end of the frame", ErrorCode.MALFORMED_FRAME)
        byte = frame[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7


def _fields(frame: bytes) -> Iterator[tuple[int, int, int | memoryview]]:
    """(field number, wire type, the varint's value or the field's bytes) for each top-level field."""
    view = memoryview(frame)
    at = 0
    while at < len(frame):
        key, at = _readvarint(frame, at)
        number, wire_type = key >> 3, key & 7
        if wire_type == _VARINT:
            value, at = _readvarint(frame, at)
            yield number, wire_type, value
            continue
        if wire_type == _LENGTH:
            size, at = _readvarint(frame, at)
        elif wire_type in (_FIXED64, _FIXED32):
            size = 8 if wire_type == _FIXED64 else 4
        else:
            raise ProtocolError(f"malformed frame: field {number} has wire type {wire_type}",
                                ErrorCode.MALFORMED_FRAME)
        if at + size > len(frame):
            raise ProtocolError(f"malformed frame: field {number} runs past the end of the frame",
                                ErrorCode.MALFORMED_FRAME)
        yield number, wire_type, view[at:at + size]
        at += size


def _doubles(number: int, wire_type: int, value: int | memoryview) -> np.ndarray:
    """The doubles of a packed (or, as protobuf also accepts, a single unpacked) double field."""
    if wire_type not in (_LENGTH, _FIXED64) or not isinstance(value, memoryview) or len(value) % 8:
        raise ProtocolError(f"malformed frame: field {number} is not a list of doubles", ErrorCode.MALFORMED_FRAME)
    return np.frombuffer(value, dtype=_DOUBLE)


def _uints(number: int, wire_type: int, value: int | memoryview) -> list[int]:
    if wire_type == _VARINT:
        return [int(value)]  # type: ignore[arg-type]
    if wire_type != _LENGTH or not isinstance(value, memoryview):
        raise ProtocolError(f"malformed frame: field {number} is not a list of whole numbers",
                            ErrorCode.MALFORMED_FRAME)
    payload = value.tobytes()
    out = []
    at = 0
    while at < len(payload):
        item, at = _readvarint(payload, at)
        out.append(item)
    return out


def encode_world_control(worlds: int, controls: np.ndarray, steps: int = 0, resets: Sequence[int] = (),
                         qpos: np.ndarray | None = None, qvel: np.ndarray | None = None) -> bytes:
    """The ControlMessage frame of a Control for all `worlds` worlds (see `WorldControl` for the arrays)."""
    parts = [varint(_MESSAGE_TYPE << 3 | _VARINT), varint(int(MessageType.CONTROL))]
    if steps:
        parts += [varint(_STEPS << 3 | _VARINT), varint(int(steps))]
    parts += [varint(_WORLDS << 3 | _VARINT), varint(int(worlds))]
    parts.append(_packed_doubles(_WORLD_CONTROLS, np.asarray(controls, dtype=_DOUBLE).ravel()))
    if len(resets):
        payload = b"".join(varint(int(world)) for world in resets)
        parts += [varint(_RESET_WORLDS << 3 | _LENGTH), varint(len(payload)), payload]
    for number, state in ((_RESET_QPOS, qpos), (_RESET_QVEL, qvel)):
        if state is not None:
            parts.append(_packed_doubles(number, np.asarray(state, dtype=_DOUBLE).ravel()))
    return b"".join(parts)


def carries_worlds(frame: bytes) -> bool:
    """Whether a ControlMessage frame holds a Control for every world (any of its fields 101-105)."""
    try:
        return any(_WORLDS <= number <= _RESET_QVEL for number, _, _ in _fields(frame))
    except ProtocolError:
        return False  # the ordinary path refuses it, naming the problem


def read_world_control(frame: bytes) -> WorldControl:
    """The arrays of a Control for every world (its other fields ignored); ProtocolError for a malformed frame."""
    controls = qpos = qvel = np.zeros(0)
    resets: list[int] = []
    steps = worlds = 0
    for number, wire_type, value in _fields(frame):
        if number == _STEPS and wire_type == _VARINT:
            steps = int(value)  # type: ignore[arg-type]
        elif number == _WORLDS and wire_type == _VARINT:
            worlds = int(value)  # type: ignore[arg-type]
        elif number == _WORLD_CONTROLS:
            controls = _doubles(number, wire_type, value)
        elif number == _RESET_WORLDS:
            resets += _uints(number, wire_type, value)
        elif number == _RESET_QPOS:
            qpos = _doubles(number, wire_type, value)
        elif number == _RESET_QVEL:
            qvel = _doubles(number, wire_type, value)
    return WorldControl(worlds=worlds, controls=controls, steps=steps, resets=np.array(resets, dtype=np.int64), qpos=qpos, qvel=qvel)


def encode_world_sensors(sensors: np.ndarray, times: np.ndarray) -> bytes:
    """The SensorMessage frame answering a Control for every world: world 0's time in simVars, as ever."""
    parts = [varint(_MESSAGE_TYPE << 3 | _VARINT), varint(int(MessageType.SENSOR))]
    if len(times) and times[0] != 0.0:
        time_field = varint(_SIMULATED_TIME << 3 | _FIXED64) + np.float64(times[0]).astype(_DOUBLE).tobytes()
        parts += [varint(_SIM_VARS << 3 | _LENGTH), varint(len(time_field)), time_field]
    parts.append(_packed_doubles(_WORLD_SENSORS, sensors.ravel()))
    parts.append(_packed_doubles(_WORLD_TIMES, times))
    return b"".join(parts)


def read_world_sensors(frame: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The (world sensors, world times) of an answer, as read-only arrays over the frame.

    RemoteError with the server's code and text when it answered with an
    ErrorMessage; ProtocolError (UNEXPECTED_MESSAGE) for any other message.
    """
    message_type = 0
    sensors = times = np.zeros(0)
    for number, wire_type, value in _fields(frame):
        if number == _MESSAGE_TYPE and wire_type == _VARINT:
            message_type = int(value)  # type: ignore[arg-type]
        elif number == _WORLD_SENSORS:
            sensors = _doubles(number, wire_type, value)
        elif number == _WORLD_TIMES:
            times = _doubles(number, wire_type, value)
    if message_type == MessageType.ERROR:
        error = decode(frame)
        assert isinstance(error, ErrorMessage)
        raise RemoteError(error.code, shown(error.text))
    if message_type != MessageType.SENSOR:
        raise ProtocolError(f"unexpected message: a message of type {message_type} answered a Control for every "
                            "world", ErrorCode.UNEXPECTED_MESSAGE)
    return sensors, times
