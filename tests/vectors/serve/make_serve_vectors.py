"""The serving vectors: a controller's session with the static scene, request by request, and the server's answers.

    python tests/vectors/serve/make_serve_vectors.py   # rewrites static_session.bin and static_session.txt here

The session holds every kind of request a server meets (README.md here lists
them); the answers are what `coupler serve --scene static` sends today. The
Python tests replay the requests through the server and expect these
answers byte for byte; the C++ tests feed them to `coupler::Server` and the
control layout. A change to the serving code that changes an answer shows up
as a changed vector in review.
"""

from __future__ import annotations

import math
import random
import struct
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

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

HERE = Path(__file__).resolve().parent
SESSION = HERE / "static_session.bin"
SCENE = "static"

# The message a controller ends its session with; no answer follows.
GOODBYE = [b"", encode(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="controller leaving"))]

Frames = list[bytes]  # one multipart message as a DEALER sends or receives it
Exchange = tuple[Frames, Frames | None]  # a request and its answer (None: none is due)


def session(handshake: HandshakeMessage) -> list[Frames]:
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

    def request(message) -> Frames:
        return [b"", encode(message)]

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


def replay(address: str, requests: list[Frames]) -> list[Frames | None]:
    """Send each request from one DEALER in turn and take its answer (None when none comes)."""
    context = zmq.Context()
    peer = context.socket(zmq.DEALER)
    peer.linger = 0
    peer.connect(address)
    answers: list[Frames | None] = []
    try:
        for request in requests:
            peer.send_multipart(request)
            answers.append(peer.recv_multipart() if peer.poll(200 if request == GOODBYE else 5000) else None)
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


# The file: each exchange is its request, then its answer, each a list of frames (an answer of no frames: none is
# due); a list of frames is its count, then each frame as its byte count and its bytes; counts are uint32 LE.
_COUNT = struct.Struct("<I")


def _write_frames(frames: Frames, out: bytearray) -> None:
    out += _COUNT.pack(len(frames))
    for frame in frames:
        out += _COUNT.pack(len(frame)) + frame


def dump(exchanges: list[Exchange]) -> bytes:
    out = bytearray()
    for request, answer in exchanges:
        _write_frames(request, out)
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
        request = frames()
        answer = frames()
        exchanges.append((request, answer or None))
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


def describe(exchanges: list[Exchange]) -> str:
    lines = [f"# {SESSION.name}: the static scene's session, request -> answer (make_serve_vectors.py writes this)", ""]
    for i, (request, answer) in enumerate(exchanges):
        lines += [f"{i}. {_shown(request)}", f"   -> {_shown(answer)}"]
    return "\n".join(lines) + "\n"


def record(address: str) -> list[Exchange]:
    """The session's exchanges with the server serving the static scene on `address`."""
    from coupler.scenes import load_scene
    from coupler.serve.server_info import with_server_info

    requests = session(with_server_info(load_scene(SCENE, None).handshake()))
    return list(zip(requests, [with_version(a, "0") for a in replay(address, requests)]))


def read_session() -> Iterator[Exchange]:
    yield from load(SESSION.read_bytes())


def main() -> int:
    import tempfile

    sys.path.insert(0, str(HERE.parents[1] / "python"))  # the tests' helpers, when run as a script
    from peers import coupler_server

    with tempfile.TemporaryDirectory() as folder:
        address = f"ipc://{folder}/s.sock"
        with coupler_server(address, "--scene", SCENE):
            exchanges = record(address)
    SESSION.write_bytes(dump(exchanges))
    SESSION.with_suffix(".txt").write_text(describe(exchanges))
    print(f"wrote {len(exchanges)} exchanges to {SESSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
