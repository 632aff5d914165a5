"""atheris target for the frames of the "worlds" extension, read through the C++ codec's binding
(`coupler.wire.world_frames`, `coupler.wire.codec`): any bytes are a Control for every world, its Sensor
answer or a handshake announcing worlds.

What must hold for every frame:

- reading raises nothing but coupler's ProtocolError (or RemoteError for an
  ErrorMessage answer);
- a Control for every world that reads re-encodes into a frame that reads back
  to the same arrays, as does an answer of world sensors;
- a handshake that decodes re-encodes to the same number of worlds.

    python tests/fuzz/world_frames_fuzzer.py [libFuzzer flags] [corpus dirs]   (scripts/fuzz runs it)
"""

from __future__ import annotations

import logging
import sys

import atheris
import numpy as np

with atheris.instrument_imports(include=["coupler"]):
    from coupler.wire.codec import decode, encode
    from coupler.wire.errors import Error, ProtocolError, RemoteError
    from coupler.wire.messages import HandshakeMessage
    from coupler.wire.world_frames import (
        carries_worlds,
        encode_world_control,
        encode_world_sensors,
        read_world_control,
        read_world_sensors,
    )


class InvariantBroken(AssertionError):
    """A property of the worlds frames that an input broke: the fuzzer reports it as a crash."""


def require(holds: bool, invariant: str) -> None:
    if not holds:
        raise InvariantBroken(invariant)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.tobytes() == b.tobytes()  # bit for bit: NaNs and -0.0 alike


def control(frame: bytes) -> None:
    if not carries_worlds(frame):
        return
    try:
        read = read_world_control(frame)
    except ProtocolError:
        return
    try:
        again = encode_world_control(read.worlds, read.controls, read.steps, read.resets.tolist(), read.qpos,
                                     read.qvel, image_worlds=read.image_worlds.tolist())
    except Error:
        return  # a value the encoder refuses to send (a step count, a world index out of range)
    back = read_world_control(again)
    require(back.worlds == read.worlds and back.steps == read.steps, "worlds and steps read back alike")
    for name in ("controls", "resets", "qpos", "qvel", "image_worlds"):
        require(same(getattr(back, name), getattr(read, name)), f"a Control's {name} read back alike")


def sensors(frame: bytes) -> None:
    try:
        values, times = read_world_sensors(frame)
    except (ProtocolError, RemoteError):
        return
    back = read_world_sensors(encode_world_sensors(values, times))
    require(same(back[0], values) and same(back[1], times), "world sensors and times read back alike")


def handshake(frame: bytes) -> None:
    try:
        message = decode(frame)
    except ProtocolError:
        return
    if isinstance(message, HandshakeMessage):
        try:
            again = encode(message)
        except Error:
            return
        back = decode(again)
        require(isinstance(back, HandshakeMessage) and back.worlds == message.worlds, "a handshake's worlds read back")


def TestOneInput(frame: bytes) -> None:
    control(frame)
    sensors(frame)
    handshake(frame)


def main() -> None:
    logging.disable(logging.CRITICAL)
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
