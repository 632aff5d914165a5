"""The measurement of perf.vision: a `coupler serve` of the arm scene whose camera is set to each size, and
`mujoco.Renderer` on the same model in this process, timed in turns.

coupler is timed twice per round, a session of its own each time (the server serves one controller): with a
session of the defaults (requests through the socket, images through shared memory), and with one that
leases the server's shared channel (`shared_channel=True`), whose requests then go through the channel. The
channel serves a controller, so that session steps once before timing: from then on the pictures show the arm
a step later per round than the renderer's, the same work to render."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from perf.common.errors import BenchmarkError
from perf.common.spread import Spread

# The renderer alone needs its OpenGL chosen before MuJoCo is imported: the server's own choice, EGL.
os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from coupler import Session  # noqa: E402
from coupler.scenes import scene_path  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.wire.errors import RemoteError  # noqa: E402
from coupler.wire.messages import ErrorCode  # noqa: E402

CAMERA = "overview"
SIZES = ((64, 64), (320, 240), (640, 480))
KINDS = ("rgb", "depth")
WARM_UP = 3  # images of each kind and side before timing: shaders compiled, buffers allocated
FRAME_BYTES = 16 << 20  # both sides' frame limit: a 640x480 depth image is over the default 1 MiB
LEAVING = 5.0  # seconds a session waits for the one before it to have left the server


def parse_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    if not (width.isdigit() and height.isdigit()):
        raise ValueError(f"a size is WxH, not {text!r}")
    return int(width), int(height)


def _per_image(render: Callable[[], object], count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        render()
    return (time.perf_counter() - started) / count * 1e3


def _session(endpoint: str, **options: object) -> Session:
    """A session of the server at `endpoint`, once the one before it has left (its goodbye may come after)."""
    deadline = time.monotonic() + LEAVING
    while True:
        try:
            return Session(endpoint, timeout=60.0, max_frame_bytes=FRAME_BYTES, **options)
        except RemoteError as busy:
            if busy.code != ErrorCode.SERVER_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _summary(values: list[float]) -> dict:
    spread = Spread.of(values)  # the median every perf tool reports: a value some round measured
    assert spread is not None
    return {"median": spread.median, "low": spread.low, "high": spread.high}


def measure(sizes: list[tuple[int, int]], rounds: int, count: int) -> list[dict]:
    model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, *(w for w, _ in sizes))
    model.vis.global_.offheight = max(model.vis.global_.offheight, *(h for _, h in sizes))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    rows = []
    for width, height in sizes:
        renderer = mujoco.Renderer(model, height, width)

        def alone(kind: str) -> np.ndarray:
            if kind == "depth":
                renderer.enable_depth_rendering()
            else:
                renderer.disable_depth_rendering()
            renderer.update_scene(data, CAMERA)
            return renderer.render()

        def coupled(through: Session, kind: str) -> np.ndarray:
            image = getattr(through.sensors(images={CAMERA: kind}).images[CAMERA], kind)
            if image is None:
                raise BenchmarkError(f"the server sent no {kind} image")
            return image

        with ServeProcess(["--scene", "arm", "--camera", f"{CAMERA}={width}x{height}", "--max-frame-bytes",
                           str(FRAME_BYTES)]) as server:
            with _session(server.endpoint) as session:
                for kind in KINDS:
                    _per_image(lambda: alone(kind), WARM_UP)
                    _per_image(lambda: coupled(session, kind), WARM_UP)
                    # Like for like: the server, asked only to read, shows the scene's start, as the renderer does.
                    mine, theirs = alone(kind), coupled(session, kind)
                    if not (np.array_equal(mine, theirs) if kind == "rgb"
                            else np.allclose(mine, theirs, rtol=1e-5)):
                        raise BenchmarkError(f"{width}x{height} {kind}: mujoco.Renderer's image differs from the "
                                             "served one, so the two would not render the same picture")
            for kind in KINDS:
                renderer_ms, coupler_ms, channel_ms, ratios, channel_ratios = [], [], [], [], []
                for _ in range(rounds):
                    renderer_ms.append(_per_image(lambda: alone(kind), count))
                    # One session at a time: the server serves one controller, and the channel is leased to one.
                    with _session(server.endpoint) as session:
                        _per_image(lambda: coupled(session, kind), 1)
                        coupler_ms.append(_per_image(lambda: coupled(session, kind), count))
                    with _session(server.endpoint, shared_channel=True) as leasing:
                        leasing.step(leasing.controls())  # the channel serves a controller from its first step on
                        if not leasing.shared_channel:
                            raise BenchmarkError("the server leased no shared channel")
                        _per_image(lambda: coupled(leasing, kind), 1)
                        channel_ms.append(_per_image(lambda: coupled(leasing, kind), count))
                    ratios.append(coupler_ms[-1] / renderer_ms[-1])
                    channel_ratios.append(channel_ms[-1] / renderer_ms[-1])
                rows.append({"size": f"{width}x{height}", "kind": kind, "renderer_ms": _summary(renderer_ms),
                             "coupler_ms": _summary(coupler_ms), "ratio": _summary(ratios),
                             "channel_ms": _summary(channel_ms), "channel_ratio": _summary(channel_ratios),
                             "rounds": {"renderer_ms": renderer_ms, "coupler_ms": coupler_ms, "ratio": ratios,
                                        "channel_ms": channel_ms, "channel_ratio": channel_ratios}})
        renderer.close()
    return rows
