"""Delivery of an image apart from its rendering: a server process answers SensorRequests with one image
rendered beforehand, its image fields made per answer as `coupler serve` makes them (through the socket, or
copied into its ring of shared memory, `coupler.serve.shared_images`), and a `coupler.Session` in this
process reads them as arrays, through shared memory or having opted out, in turns.

The session through shared memory also leases the server's shared channel, as `coupler serve` leases it to a
lone controller: its requests go through the channel, with the image and without it. Each session times the
same SensorRequest with the image and without it, interleaved: what an image adds is their difference."""

from __future__ import annotations

import dataclasses
import multiprocessing
import statistics
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from coupler import Session
from coupler.serve.shared_channel import SharedChannelServer
from coupler.serve.shared_images import SharedImages
from coupler.transport.options import TransportOptions
from coupler.transport.server import Server
from coupler.wire.codec import decode, encode
from coupler.wire.errors import TimeoutError
from coupler.wire.messages import (
    EXTENSION_IMAGES,
    EXTENSION_SHARED_MEMORY,
    HandshakeInitMessage,
    HandshakeMessage,
    SensorMessage,
    SensorRequestMessage,
    ServerInfo,
)

CAMERA = "overview"
FRAME_BYTES = 16 << 20  # as measure.FRAME_BYTES: a 640x480 depth image is over the default 1 MiB
CHANNEL_BYTES = 1 << 16  # as coupler.serve.shared_channel.MIN_CAPACITY
_DTYPES = {"rgb": np.uint8, "depth": np.float32}


def _pixels(width: int, height: int, kind: str) -> np.ndarray:
    shape = (height, width, 3) if kind == "rgb" else (height, width)
    return np.random.default_rng(0).integers(0, 255, shape).astype(_DTYPES[kind])


def _answer_through(channel: SharedChannelServer, state: bytes, answer_images, stop) -> None:
    """As `coupler serve` answers through its channel: a plain read with the state, a read asking for images
    with them, anything else handed back empty (the client sends it through the socket)."""
    plain = encode(SensorRequestMessage())
    while not stop.is_set():
        request = channel.receive(0.1)
        if request is None:
            continue
        if request == plain:
            channel.reply(state)
            continue
        message = decode(request)
        channel.reply(answer_images(message.shared_memory) if getattr(message, "images", None) else b"")


def _serve(address: str, width: int, height: int, kind: str, ready, stop) -> None:
    """A server of one image: the state frame of no object, and the image fields made for each answer that
    asks for images; its shared channel leased to whoever asks (one session at a time)."""
    pixels = _pixels(width, height, kind)
    shared = SharedImages(FRAME_BYTES)
    channel = SharedChannelServer(CHANNEL_BYTES)
    server = Server(address, TransportOptions(max_frame_bytes=FRAME_BYTES))
    handshake = shared.handshake(HandshakeMessage(
        server=ServerInfo("perf.vision", "0", [EXTENSION_IMAGES, EXTENSION_SHARED_MEMORY])))
    leased = dataclasses.replace(handshake, shared_channel=channel.path)
    state = encode(SensorMessage(simulated_time=0.0))
    rendered = [(CAMERA, kind, width, height, 0.0, pixels)]

    def answer_images(shared_memory: bool) -> bytes:
        return state + shared.fields(rendered, shared_memory)

    threading.Thread(target=_answer_through, args=(channel, state, answer_images, stop), daemon=True).start()
    ready.set()
    while not stop.is_set():
        try:
            request = server.receive(0.1)
        except TimeoutError:
            continue
        if isinstance(request.message, HandshakeInitMessage):
            server.reply(request, leased if request.message.shared_channel else handshake)
            continue
        if not getattr(request.message, "images", None):
            server.reply_frame(request, state)  # the first Control, and reads without images
            continue
        server.reply_frame(request, answer_images(request.message.shared_memory))
    server.close()


def _per_image(session: Session, kind: str, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        picture = getattr(session.sensors(images={CAMERA: kind}).images[CAMERA], kind)
        int(picture[-1, -1].sum())  # the client touches the image, as a controller reading it does
    return (time.perf_counter() - started) / count * 1e3


def _per_read(session: Session, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        session.sensors()
    return (time.perf_counter() - started) / count * 1e3


def _with_and_without(session: Session, kind: str, count: int) -> tuple[float, float]:
    """ms per request with the image and without it, in mirrored order (half without, with, half without)."""
    first = _per_read(session, count // 2 or 1)
    with_image = _per_image(session, kind, count)
    second = _per_read(session, count - count // 2 or 1)
    return with_image, (first + second) / 2


def _spread(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"median": statistics.median_low(ordered), "low": ordered[0], "high": ordered[-1]}


def measure_delivery(sizes: list[tuple[int, int]], kinds: tuple[str, ...], rounds: int,
                     count: int) -> list[dict]:
    """Per size and kind: ms per request with the image and without it, through shared memory (with the shared
    channel) and through the socket, by rounds, and what the image adds (their difference, round by round)."""
    rows = []
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="perf-vision-") as folder:
        for width, height in sizes:
            for kind in kinds:
                address = f"ipc://{Path(folder) / f'{width}x{height}-{kind}.sock'}"
                ready, stop = context.Event(), context.Event()
                server = context.Process(target=_serve, args=(address, width, height, kind, ready, stop),
                                         daemon=True)
                server.start()
                try:
                    ready.wait(30)
                    times: dict[str, list[float]] = {"shared_ms": [], "socket_ms": [], "shared_plain_ms": [],
                                                     "socket_plain_ms": []}
                    for _ in range(rounds):
                        # One session at a time, as the channel is leased to one.
                        for shared_memory, side in ((True, "shared"), (False, "socket")):
                            with Session(address, timeout=30.0, max_frame_bytes=FRAME_BYTES,
                                         shared_memory=shared_memory, shared_channel=shared_memory) as session:
                                if shared_memory and (session.shared_images is None or not session.shared_channel):
                                    raise RuntimeError("the session did not map the server's shared memory and "
                                                       "channel")
                                session.step(session.controls())  # after it, plain reads go through the channel
                                _with_and_without(session, kind, 3)
                                with_image, without = _with_and_without(session, kind, count)
                                times[f"{side}_ms"].append(with_image)
                                times[f"{side}_plain_ms"].append(without)
                finally:
                    stop.set()
                    server.join(10)
                shared_ms, socket_ms = times["shared_ms"], times["socket_ms"]
                adds = {side: [a - b for a, b in zip(times[f"{side}_ms"], times[f"{side}_plain_ms"])]
                        for side in ("shared", "socket")}
                rows.append({"size": f"{width}x{height}", "kind": kind, "channel": True,
                             "shared_ms": statistics.median(shared_ms), "socket_ms": statistics.median(socket_ms),
                             "shared_range": [min(shared_ms), max(shared_ms)],
                             "socket_range": [min(socket_ms), max(socket_ms)],
                             "shared_plain_ms": _spread(times["shared_plain_ms"]),
                             "socket_plain_ms": _spread(times["socket_plain_ms"]),
                             "shared_adds_ms": _spread(adds["shared"]), "socket_adds_ms": _spread(adds["socket"]),
                             "rounds": {**times, "shared_adds_ms": adds["shared"],
                                        "socket_adds_ms": adds["socket"]}})
    return rows
