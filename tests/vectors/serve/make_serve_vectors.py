"""The serving vectors: controllers' sessions with a server, request by request, and the server's answers.

    python tests/vectors/serve/make_serve_vectors.py   # rewrites every session's .bin and .txt here

Each session (README.md here lists what they hold) is the flags of the
`coupler serve` it is recorded against and the requests a controller sends
it; the answers are what that server sends today. `static` drives the static
scene; `worlds` drives three worlds of `worlds_scene.xml` with Controls for
every world, a scene whose every answer is exact on any MuJoCo build and CPU.
The Python tests replay the requests through the server and expect these
answers byte for byte; the C++ tests feed them to `coupler::Server`, the
control layout and the check of a Control for every world. A change to the
serving code that changes an answer shows up as a changed vector in review.
"""

from __future__ import annotations

import math
import random
import struct
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import zmq

from coupler.wire.codec import decode, encode
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import (
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    ObjectSensors,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
    ValueType,
)
from coupler.wire.world_frames import encode_world_control

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
WORLDS_SCENE = HERE / "worlds_scene.xml"

# The message a controller ends its session with; no answer follows.
GOODBYE = [b"", encode(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="controller leaving"))]

Frames = list[bytes]  # one multipart message as a DEALER sends or receives it
Exchange = tuple[Frames, Frames | None]  # a request and its answer (None: none is due)


def request(message) -> Frames:
    """`message` as a DEALER sends it: the empty delimiter, then its frame."""
    return [b"", encode(message)]


def static_requests(handshake: HandshakeMessage) -> list[Frames]:
    """A controller's session, with every kind of request a server meets, as multipart messages from a DEALER."""
    rng = random.Random(7)
    controlled = {name: d for name, d in handshake.objects.items() if d.controls}
    first = sorted(controlled)[0]

    def control(k: int, steps: int = 0) -> bytes:
        objects = {
            name: ObjectControl(
                [rng.uniform(-2.0, 2.0) for _ in d.controls], {event: (k // 5) % 2 == 0 for event in d.control_events}
            )
            for name, d in controlled.items()
        }
        return encode(ControlMessage(objects=objects, steps=steps))

    def bad_control(**objects: ObjectControl) -> Frames:
        return request(ControlMessage(objects=objects))

    width = len(controlled[first].controls)
    steps = [0, 1, 3]
    frames = [request(HandshakeInitMessage()), request(SensorRequestMessage())]
    frames += [[b"", control(k, steps[k % 3])] for k in range(30)]
    frames.append(request(ControlMessage(objects={first: ObjectControl([0.1] * width)})))
    if all(t == ValueType.ANGLE for t in controlled[first].control_types):
        frames.append(request(ControlMessage(objects={first: ObjectControl([0.2] * width, field=ControlField.ANGLES)})))
    frames += [
        bad_control(robot9=ObjectControl([1.0])),
        bad_control(**{first: ObjectControl([1.0] * (width + 1))}),
        bad_control(**{first: ObjectControl([math.nan] * width)}),
        bad_control(**{first: ObjectControl([0.0] * width, {"laser": True})}),
        bad_control(**{first: ObjectControl([0.0] * width, field=ControlField.TORQUES)}),
        request(ControlMessage(steps=200_000)),
        request(SensorRequestMessage()),
        request(ResetMessage()),
        request(SensorRequestMessage()),  # at time 0: simVars left out
        *([b"", control(k)] for k in range(5)),
        request(HandshakeInitMessage(version=0)),
        request(SensorMessage(objects={first: ObjectSensors(angles=[0.0])}, simulated_time=1.0)),
        [b"", b"\xde\xad\xbe\xef\xff\xff"],
        [b"", control(0)[:-3]],
        [b"", encode(SensorRequestMessage()), encode(ResetMessage())],
        [b"", b"\x08\x63"],
        [b""],
        [encode(SensorRequestMessage())],
        GOODBYE,
        request(HandshakeInitMessage()),
        *([b"", control(k, 2)] for k in range(3)),
    ]
    return frames


# Unit quaternions (qw, qx, qy, qz) of components 0, +-0.5 and 1: their length is 1 to the bit, and their roll,
# pitch and yaw are atan2 and asin at the arguments whose results the C standard fixes (0, +-pi/2, pi).
EXACT_ROTATIONS = [(1.0, 0.0, 0.0, 0.0), (0.5, 0.5, 0.5, 0.5), (0.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 0.0),
                   (0.5, 0.5, -0.5, -0.5), (0.0, 0.0, 1.0, 0.0)]
POSE_SIZE = 7  # a mocap body's controls: x, y, z, then qw, qx, qy, qz
ROTATION = slice(3, 7)

WORLDS_FIELD = 101  # ControlMessage.worlds (proto/coupler.proto), a uint32


def beyond_32_bits(field: int) -> bytes:
    """Varint field `field` set to 2**32, one more than a uint32 holds: appended to a frame, it is the value read."""
    out = bytearray()
    for number in ((field << 3) | 0, 2**32):  # wire type 0: a varint
        while number >= 0x80:
            out.append(number & 0x7F | 0x80)
            number >>= 7
        out.append(number)
    return bytes(out)


def world_requests(handshake: HandshakeMessage, state_sizes: tuple[int, int]) -> list[Frames]:
    """A controller's session with a batched server of `handshake` whose worlds' qpos and qvel have `state_sizes`:
    Controls for every world, resets, reads and the Controls a batched server refuses. Every pose sent is one of
    `EXACT_ROTATIONS` at a position of few bits, and every state given a dyadic number, so every answer is exact."""
    worlds = handshake.worlds
    poses = sorted(name for name, d in handshake.objects.items() if d.controls)  # the control layout's order
    nq, nv = state_sizes

    def pose_values(k: int, world: int) -> list[float]:
        """World `world`'s values in the `k`th Control: each mocap body somewhere else, turned some other way."""
        values: list[float] = []
        for i in range(len(poses)):
            position = [0.125 * k + world, 0.5 - 0.25 * world + i, 0.75 + 0.0625 * k]
            values += position + list(EXACT_ROTATIONS[(k + world + 3 * i) % len(EXACT_ROTATIONS)])
        return values

    def every_world(k: int) -> np.ndarray:
        return np.array([pose_values(k, world) for world in range(worlds)])

    def with_number(values: np.ndarray, world: int, places: int | slice, number: float) -> np.ndarray:
        """`values` (a row per world) with `number` at `places` of world `world`."""
        values = values.copy()
        values[world, places] = number
        return values

    def world_control(*args, **kwargs) -> Frames:
        return [b"", encode_world_control(*args, **kwargs)]

    def states(resets: list[int], size: int, scale: float) -> np.ndarray:
        return np.array([[scale * (world + 1)] * size for world in resets])

    steps = [0, 1, 3]
    frames = [request(HandshakeInitMessage()), request(SensorRequestMessage())]
    frames += [world_control(worlds, every_world(k), steps[k % 3]) for k in range(9)]
    frames += [
        world_control(worlds, every_world(9), 1, resets=[1]),  # world 1 back to the start, the others stepped
        world_control(worlds, None, resets=[0, 2], qpos=states([0, 2], nq, 0.25), qvel=states([0, 2], nv, 0.5)),
        world_control(worlds, every_world(10), 3),  # the drawers given a speed move by it, exactly
        world_control(worlds, None, resets=[2], qpos=states([2], nq, -0.75)),  # qvel: the scene's initial one
        world_control(worlds, None),  # steps no world: reads them all
        request(SensorRequestMessage()),  # world 0 alone, as ordinary requests see it
        request(ControlMessage(objects={poses[0]: ObjectControl(pose_values(11, 0)[:POSE_SIZE])})),
        world_control(worlds, None),
        request(ResetMessage()),
        world_control(worlds, None),
        # Refused, each leaving every world as it was.
        world_control(worlds + 1, np.array([pose_values(12, world) for world in range(worlds + 1)])),
        world_control(worlds, every_world(12).ravel()[:-1]),
        world_control(worlds, None, resets=[worlds]),
        world_control(worlds, None, resets=[worlds - 1, 0]),
        world_control(worlds, None, resets=[0, 1], qpos=states([0], nq, 0.25)),
        world_control(worlds, None, resets=[0], qvel=states([0, 1], nv, 0.5)),
        world_control(worlds, with_number(every_world(12), 1, 3, math.nan)),
        world_control(worlds, every_world(12), 200_000),
        world_control(worlds, with_number(every_world(12), worlds - 1, ROTATION, 0.0)),  # a zero quaternion
        [b"", encode_world_control(worlds, None) + beyond_32_bits(WORLDS_FIELD)],
        world_control(worlds, None),
        GOODBYE,
    ]
    return frames


def replay(address: str, requests: list[Frames]) -> list[Frames | None]:
    """Send each request from one DEALER in turn and take its answer (None when none comes)."""
    context = zmq.Context()
    peer = context.socket(zmq.DEALER)
    peer.linger = 0
    peer.connect(address)
    answers: list[Frames | None] = []
    try:
        for sent in requests:
            peer.send_multipart(sent)
            answers.append(peer.recv_multipart() if peer.poll(200 if sent == GOODBYE else 5000) else None)
    finally:
        context.destroy(linger=0)
    return answers


def with_version(answer: Frames | None, version: str) -> Frames | None:
    """`answer` with the server version of a handshake in it set to `version` (it names the package's release)."""
    if answer is None or len(answer) != 2:
        return answer
    try:
        message = decode(answer[1])
    except ProtocolError:
        return answer
    if not isinstance(message, HandshakeMessage) or message.server is None:
        return answer
    return [answer[0], encode(replace(message, server=replace(message.server, version=version)))]


@dataclass(frozen=True)
class Session:
    """A recorded session: the server it is recorded against and the requests a controller sends it."""

    name: str  # its files are <name>_session.bin and <name>_session.txt
    flags: tuple[str, ...]  # `coupler serve`'s, besides the address
    transport: str  # "ipc" or "tcp" (tests/python/peers.py's address_for)
    requests: Callable[[], list[Frames]]  # built from the scene as that server serves it

    @property
    def path(self) -> Path:
        return HERE / f"{self.name}_session.bin"

    def read(self) -> Iterator[Exchange]:
        yield from load(self.path.read_bytes())


def _static_requests() -> list[Frames]:
    from coupler.scenes import load_scene
    from coupler.serve.server_info import with_server_info

    return static_requests(with_server_info(load_scene("static", None).handshake()))


WORLD_COUNT = 3


def _world_requests() -> list[Frames]:
    from coupler.cli.world_flags import batched
    from coupler.scenes import load_scene

    served = batched(load_scene(str(WORLDS_SCENE), None), WORLD_COUNT, 1)
    return world_requests(served.handshake(), served.worlds.state_sizes)


STATIC = Session("static", ("--scene", "static"), "ipc", _static_requests)
# Over TCP: on IPC a batched server's handshake offers its shared-memory ring, under a path of its process id.
WORLDS = Session("worlds", ("--scene", str(WORLDS_SCENE.relative_to(REPO)), "--worlds", str(WORLD_COUNT)), "tcp",
                 _world_requests)
SESSIONS = (STATIC, WORLDS)


# The file: each exchange is its request, then its answer, each a list of frames (an answer of no frames: none is
# due); a list of frames is its count, then each frame as its byte count and its bytes; counts are uint32 LE.
_COUNT = struct.Struct("<I")


def _write_frames(frames: Frames, out: bytearray) -> None:
    out += _COUNT.pack(len(frames))
    for frame in frames:
        out += _COUNT.pack(len(frame)) + frame


def dump(exchanges: list[Exchange]) -> bytes:
    out = bytearray()
    for sent, answer in exchanges:
        _write_frames(sent, out)
        _write_frames(answer or [], out)
    return bytes(out)


def load(data: bytes) -> list[Exchange]:
    at = 0

    def count() -> int:
        nonlocal at
        (value,) = _COUNT.unpack_from(data, at)
        at += _COUNT.size
        return value

    def frames() -> Frames:
        nonlocal at
        parts = []
        for _ in range(count()):
            size = count()
            parts.append(data[at:at + size])
            at += size
        return parts

    exchanges: list[Exchange] = []
    while at < len(data):
        sent = frames()
        answer = frames()
        exchanges.append((sent, answer or None))
    return exchanges


def _shown(frames: Frames | None) -> str:
    if frames is None:
        return "no answer"
    if len(frames) != 2 or frames[0]:
        return f"{len(frames)} frames: " + ", ".join(frame.hex() or "(empty)" for frame in frames)
    try:
        return repr(decode(frames[1]))
    except ProtocolError:
        return f"undecodable: {frames[1].hex()}"


def describe(session: Session, exchanges: list[Exchange]) -> str:
    served = " ".join(("coupler serve", *session.flags))
    lines = [f"# {session.path.name}: a session with `{served}`, request -> answer (make_serve_vectors.py writes this)",
             ""]
    for i, (sent, answer) in enumerate(exchanges):
        lines += [f"{i}. {_shown(sent)}", f"   -> {_shown(answer)}"]
    return "\n".join(lines) + "\n"


def record(session: Session, address: str) -> list[Exchange]:
    """The session's exchanges with its server, serving on `address`."""
    requests = session.requests()
    return list(zip(requests, [with_version(a, "0") for a in replay(address, requests)]))


def main() -> int:
    import tempfile

    sys.path.insert(0, str(HERE.parents[1] / "python"))  # the tests' helpers, when run as a script
    from peers import address_for, coupler_server

    for session in SESSIONS:
        with tempfile.TemporaryDirectory() as folder:
            address = address_for(session.transport, Path(folder))
            with coupler_server(address, *session.flags):
                exchanges = record(session, address)
        session.path.write_bytes(dump(exchanges))
        session.path.with_suffix(".txt").write_text(describe(session, exchanges))
        print(f"wrote {len(exchanges)} exchanges to {session.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
