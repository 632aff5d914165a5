"""Delivery of an image apart from its rendering: a server process answers SensorRequests with one image
rendered beforehand, its image fields made per answer as `coupler serve` makes them (through the socket, or
copied into its ring of shared memory, `coupler.serve.shared_images`), and a `coupler.Session` in this
process reads them as arrays, through shared memory or having opted out, in turns."""

from __future__ import annotations

import multiprocessing
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from coupler import Session, _native
from coupler.serve.shared_images import SharedImages
from coupler.wire.codec import encode
from coupler.wire.errors import TimeoutError
from coupler.wire.messages import (
    EXTENSION_IMAGES,
    EXTENSION_SHARED_MEMORY,
    HandshakeInitMessage,
    HandshakeMessage,
    SensorMessage,
    ServerInfo,
)

CAMERA = "overview"
FRAME_BYTES = 16 << 20  # as measure.FRAME_BYTES: a 640x480 depth image is over the default 1 MiB
_DTYPES = {"rgb": np.uint8, "depth": np.float32}


def _pixels(width: int, height: int, kind: str) -> np.ndarray:
    shape = (height, width, 3) if kind == "rgb" else (height, width)
    return np.random.default_rng(0).integers(0, 255, shape).astype(_DTYPES[kind])


def _serve(address: str, width: int, height: int, kind: str, ready, stop) -> None:
    """A server of one image: the state frame of no object, and the image fields made for each answer."""
    pixels = _pixels(width, height, kind)
    shared = SharedImages(FRAME_BYTES)
    server = _native.Server(address, max_frame_bytes=FRAME_BYTES)
    handshake = shared.handshake(HandshakeMessage(
        server=ServerInfo("perf.vision", "0", [EXTENSION_IMAGES, EXTENSION_SHARED_MEMORY])))
    state = encode(SensorMessage(simulated_time=0.0))
    ready.set()
    while not stop.is_set():
        try:
            request = server.receive(0.1)
        except TimeoutError:
            continue
        if isinstance(request.message, HandshakeInitMessage):
            server.reply(request, encode(handshake))
            continue
        rendered = [(CAMERA, kind, width, height, 0.0, pixels)]
        server.reply(request, state + shared.fields(rendered, request.shared_memory))
    server.close()


def _per_image(session: Session, kind: str, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        picture = getattr(session.sensors(images={CAMERA: kind}).images[CAMERA], kind)
        int(picture[-1, -1].sum())  # the client touches the image, as a controller reading it does
    return (time.perf_counter() - started) / count * 1e3


def measure_delivery(sizes: list[tuple[int, int]], kinds: tuple[str, ...], rounds: int,
                     count: int) -> list[dict]:
    """Per size and kind: ms per image delivered through shared memory and through the socket, by rounds."""
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
                    shared_ms, socket_ms = [], []
                    for _ in range(rounds):
                        # One session at a time: this stand-in server leases nothing, but coupler serve would.
                        for shared_memory, times in ((True, shared_ms), (False, socket_ms)):
                            with Session(address, timeout=30.0, max_frame_bytes=FRAME_BYTES,
                                         shared_memory=shared_memory) as session:
                                if shared_memory and session.shared_images is None:
                                    raise RuntimeError("the session did not map the server's shared memory")
                                _per_image(session, kind, 3)
                                times.append(_per_image(session, kind, count))
                finally:
                    stop.set()
                    server.join(10)
                rows.append({"size": f"{width}x{height}", "kind": kind,
                             "shared_ms": statistics.median(shared_ms), "socket_ms": statistics.median(socket_ms),
                             "shared_range": [min(shared_ms), max(shared_ms)],
                             "socket_range": [min(socket_ms), max(socket_ms)],
                             "rounds": {"shared_ms": shared_ms, "socket_ms": socket_ms}})
    return rows
