"""The MuJoCo state after a step as a serialized `coupler.record.v1.MujocoState`, written straight from
mjData's arrays.

This runs on the serving thread after every step; building the protobuf
message from NumPy arrays converts each value to a Python float and costs
several times as much as writing the packed doubles' bytes directly. The
bytes are the ones protobuf writes (proto3: fields in number order, zero and
empty fields left out, repeated doubles packed); tested against it.
"""

from __future__ import annotations

import struct

import numpy as np

_DOUBLE = struct.Struct("<d")
_TIME, _STEP = b"\x09", b"\x10"  # field 1 fixed64, field 2 varint
_ARRAYS = (b"\x1a", b"\x22", b"\x2a", b"\x32")  # fields 3..6 (qpos, qvel, act, ctrl), length-delimited


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode_state(time: float, step: int, qpos: np.ndarray, qvel: np.ndarray, act: np.ndarray,
                 ctrl: np.ndarray) -> bytes:
    parts = []
    if time != 0.0:
        parts += [_TIME, _DOUBLE.pack(time)]
    if step:
        parts += [_STEP, _varint(step)]
    for tag, values in zip(_ARRAYS, (qpos, qvel, act, ctrl)):
        if values.size:
            data = np.ascontiguousarray(values, dtype="<f8").tobytes()
            parts += [tag, _varint(len(data)), data]
    return b"".join(parts)
