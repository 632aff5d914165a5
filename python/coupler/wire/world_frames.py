"""Frames of the "worlds" extension: one Control for every world of a batched server, and its answer.

A batched server (`coupler serve --worlds N`) announces "worlds" and N in its
handshake. A `WorldControl` carries, world-major, each world's control values
(in the control layout's order) and then one number per control event
(nonzero: on), plus the worlds to reset instead of stepping and the states to
reset them to; the answer is a SensorMessage whose `worldSensors` hold each
world's readings in the sensor layout's order and `worldTimes` each world's
simulated time (and `worldData` the MuJoCo arrays the server was asked to
send, `coupler serve --world-data`). Both are ordinary ControlMessage and SensorMessage frames
(fields from 100 up, see proto/coupler.proto), written and read by the one
codec (`coupler.wire.codec`), their numbers crossing as NumPy arrays rather
than as lists of Python floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from coupler import _native
from coupler.wire.codec import decode
from coupler.wire.errors import ProtocolError, RemoteError
from coupler.wire.messages import ErrorCode, ErrorMessage

__all__ = ["WorldControl", "WorldImages", "carries_worlds", "encode_world_control", "encode_world_sensors",
           "read_world_answer", "read_world_answer_with_images", "read_world_control", "read_world_sensors",
           "world_control_in",
           "world_answer_bytes", "world_control_bytes"]

# The most bytes the frames take, counted as the C++ client counts them (coupler/wire/frame_bytes.hpp).
world_answer_bytes = _native.limits.world_answer_bytes
world_control_bytes = _native.limits.world_control_bytes


@dataclass(frozen=True)
class WorldControl:
    """What a Control for every world asks: arrays as read, their shapes checked by the server."""

    worlds: int  # how many worlds the sender drives: the server's
    controls: np.ndarray  # flat, world-major: per world its control values, then its events; empty: no step
    steps: int  # the Control's steps field (0 means one)
    resets: np.ndarray  # indices of the worlds to reset instead of stepping
    qpos: np.ndarray  # flat: one qpos per reset world, or empty
    qvel: np.ndarray  # flat: one qvel per reset world, or empty
    # The worlds whose images the answer carries, of the cameras the Control's images name; empty: every world.
    image_worlds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


@dataclass(frozen=True)
class WorldImages:
    """One kind of image of one camera, of several worlds: `pixels` stacks them, world by world."""

    camera: str
    kind: str  # "rgb", "depth" or "segmentation"
    pixels: np.ndarray  # (worlds, H, W, 3) uint8, (worlds, H, W) float32 metres or int32 geom ids


def _flat(values: np.ndarray | None) -> np.ndarray:
    return np.ascontiguousarray(np.zeros(0) if values is None else values, dtype=np.float64).ravel()


def encode_world_control(worlds: int, controls: np.ndarray, steps: int = 0, resets: Sequence[int] = (),
                         qpos: np.ndarray | None = None, qvel: np.ndarray | None = None,
                         images: Sequence[tuple[str, Sequence[str]]] = (), image_worlds: Sequence[int] = (),
                         shared_memory: bool = False) -> bytes:
    """The ControlMessage frame of a Control for all `worlds` worlds (see `WorldControl` for the arrays), asking
    for the `images` ((camera, kinds) each) of the worlds `image_worlds` lists (empty: every world), and with
    `shared_memory` for the answer's big arrays through the ring the handshake announced (the "shm" extension)."""
    return _native.encode_world_control(int(worlds), _flat(controls), int(steps), [int(w) for w in resets],
                                        _flat(qpos), _flat(qvel), [(camera, list(kinds)) for camera, kinds in images],
                                        [int(w) for w in image_worlds], bool(shared_memory))


def carries_worlds(frame: bytes) -> bool:
    """Whether a ControlMessage frame holds a Control for every world (any of its world fields set)."""
    try:
        return _native.read_world_control(frame) is not None
    except ProtocolError:
        return False  # the ordinary path refuses it, naming the problem


def world_control_in(frame: bytes) -> WorldControl | None:
    """The arrays of a ControlMessage frame's Control for every world; None when it holds none, or is malformed
    (the ordinary path refuses it, naming the problem): `carries_worlds` and `read_world_control` in one decoding."""
    try:
        read = _native.read_world_control(frame)
    except ProtocolError:
        return None
    return None if read is None else _world_control(read)


def _world_control(read: tuple) -> WorldControl:
    worlds, controls, steps, resets, qpos, qvel, image_worlds = read
    return WorldControl(worlds=worlds, controls=controls, steps=steps, resets=resets, qpos=qpos, qvel=qvel,
                        image_worlds=image_worlds)


def read_world_control(frame: bytes) -> WorldControl:
    """The arrays of a Control for every world (its other fields ignored); ProtocolError for a malformed frame."""
    read = _native.read_world_control(frame)
    if read is None:
        empty = np.zeros(0)
        return WorldControl(worlds=0, controls=empty, steps=decode(frame).steps, resets=np.zeros(0, dtype=np.int64),
                            qpos=empty, qvel=empty)
    return _world_control(read)


def encode_world_sensors(sensors: np.ndarray, times: np.ndarray, data: np.ndarray | None = None,
                         images: Sequence[WorldImages] = (), image_worlds: Sequence[int] = (),
                         ring: _native.SharedRingWriter | None = None) -> bytes:
    """The SensorMessage frame answering a Control for every world: world 0's time in simVars, as ever; `data`: every
    world's `--world-data` arrays (world-major), or None; `images` of the worlds `image_worlds` lists.

    With a `ring` (the "shm" extension), the sensors, data and images are written into its next buffer and the
    frame says where they lie, when they take the ring's `min_bytes` or more together and fit one buffer."""
    stacks = [(i.camera, i.kind, i.pixels.shape[2], i.pixels.shape[1], np.ascontiguousarray(i.pixels)) for i in images]
    return _native.encode_world_answer(_flat(sensors), _flat(times), _flat(data), stacks,
                                       [int(w) for w in image_worlds], ring)


def read_world_sensors(frame: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The (world sensors, world times) of an answer; raises as `read_world_answer`."""
    sensors, times, _ = read_world_answer(frame)
    return sensors, times


def read_world_answer(frame: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (world sensors, world times, world data) of an answer; the data is empty unless the server sends it.

    RemoteError with the server's code and text when it answered with an
    ErrorMessage; ProtocolError (UNEXPECTED_MESSAGE) for any other message.
    """
    sensors, times, data, _, _ = read_world_answer_with_images(frame)
    return sensors, times, data


def read_world_answer_with_images(
        frame: bytes,
        shared: _native.SharedRingReader | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[WorldImages], np.ndarray]:
    """`read_world_answer`'s arrays, then the answer's images and the worlds they show, as the C++ WorldSession
    reads an answer (`coupler._native.read_world_answer`): read-only views of the frame, or of the mapping `shared`
    for arrays in shared memory (the "shm" extension). ProtocolError (MALFORMED_FRAME) for readings that do not
    divide among its worlds, an image of an unknown kind or whose bytes do not fill its worlds' pictures, and
    arrays in shared memory without `shared`; coupler.Error (one line) for a buffer since overwritten."""
    read = _native.read_world_answer(frame, shared)
    if read is not None:
        sensors, times, data, stacks, image_worlds = read
        return (sensors.reshape(-1), times, data.reshape(-1), [WorldImages(*stack) for stack in stacks],
                image_worlds.astype(np.int64))
    message = decode(frame)
    if isinstance(message, ErrorMessage):
        raise RemoteError(message.code, message.text)
    raise ProtocolError(f"unexpected message: a {type(message).__name__} answered a Control for every world",
                        ErrorCode.UNEXPECTED_MESSAGE)
