"""The model's cameras rendered offscreen, on a thread of their own.

OpenGL contexts belong to one thread: the context, MuJoCo's render context
and scene live on the rendering thread, made when the first image is asked
for (`coupler.mujoco.offscreen`). The serving thread copies the state to
render into a `mjData` of the renderer's and hands the job over; the
simulation goes on from its own data, and the serving thread serves others
while the job renders.

Each kind is rendered as `mujoco.Renderer` renders it, with the same flags:
rgb as the scene looks, depth and segmentation with MuJoCo's segmentation
colouring (one render serves both). Depth comes out of OpenGL's reversed-z
buffer as metres along the optical axis; segmentation as the id of the geom
seen at each pixel, -1 where none is. Rows go from the top of the picture
down.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass

import mujoco
import numpy as np

from coupler.mujoco.offscreen import make_context
from coupler.wire.messages import CameraDescription

log = logging.getLogger(__name__)

# An image as the serving layer sends it: camera, kind, width, height, simulated time, the pixels.
Rendered = tuple[str, str, int, int, float, np.ndarray]
_GEOM = int(mujoco.mjtObj.mjOBJ_GEOM)


class OffscreenCameras:
    """Renders `cameras` (the handshake's, of `model`) of the state in `data` with the first of `backends` that
    works.

    `render` is called from the serving thread; the rendering itself runs on
    this object's thread, started on first use and ended by `close`.
    """

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, cameras: Sequence[CameraDescription],
                 backends: list[str]) -> None:
        self.model = model
        self.source = data
        self.cameras = {camera.name: camera for camera in cameras}
        self._ids = {camera.name: mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, camera.name)
                     for camera in cameras}
        self._backends = backends
        self._spare: list[mujoco.MjData] = []  # states rendered, to fill again (the serving thread takes them)
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self.backend: str | None = None  # the backend rendering, once its context is made

    def submit(self, wanted: list[tuple[str, tuple[str, ...]]]) -> Future[list[Rendered]]:
        """Start rendering the images of `wanted` ((camera, kinds) each) of the state now; their future.

        Call from the serving thread: the state is copied before this returns, so the simulation may step
        on at once. The future fails with RuntimeError when no OpenGL context can be made.
        """
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="coupler-cameras", daemon=True)
                self._thread.start()
            state = self._spare.pop() if self._spare else mujoco.MjData(self.model)
        mujoco.mj_copyData(state, self.model, self.source)
        done: Future[list[Rendered]] = Future()
        self._jobs.put(_Job(wanted, state, done))
        return done

    def render(self, wanted: list[tuple[str, tuple[str, ...]]], timeout: float) -> list[Rendered]:
        """`submit`, waited for: TimeoutError when rendering takes over `timeout` seconds."""
        return self.submit(wanted).result(timeout)

    def close(self) -> None:
        if self._thread is not None:
            self._jobs.put(None)
            self._thread.join(timeout=5.0)
            self._thread = None

    def _serve(self) -> None:
        try:
            renderer = _Renderer(self.model, self.cameras, self._ids, self._backends)
        except Exception as error:  # no OpenGL after all: every job says so
            reason = str(error)
            log.warning("cameras cannot be rendered: %s", reason)
            while (job := self._jobs.get()) is not None:
                job.done.set_exception(RuntimeError(reason))
            return
        self.backend = renderer.backend
        if renderer.backend != self._backends[0]:
            log.warning("rendering cameras offscreen with %s: %s did not work", renderer.backend.upper(),
                        self._backends[0].upper())
        try:
            while (job := self._jobs.get()) is not None:
                try:
                    job.done.set_result(renderer.render(job.state, job.wanted))
                except Exception as error:  # reported to the one who asked; the thread goes on
                    job.done.set_exception(error)
                with self._lock:
                    self._spare.append(job.state)
        finally:
            renderer.close()


@dataclass
class _Job:
    wanted: list[tuple[str, tuple[str, ...]]]
    state: mujoco.MjData  # a copy of the simulation's, taken when the images were asked for
    done: Future[list[Rendered]]


class _Renderer:
    """One GL context, one MuJoCo render context and scene, on the thread that made them."""

    def __init__(self, model: mujoco.MjModel, cameras: dict[str, CameraDescription], ids: dict[str, int],
                 backends: list[str]) -> None:
        self.model = model
        self.cameras = cameras
        self.ids = ids
        width = max((c.width for c in cameras.values()), default=1)
        height = max((c.height for c in cameras.values()), default=1)
        # The offscreen buffer holds the largest camera; the physics reads nothing of vis.
        model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
        model.vis.global_.offheight = max(model.vis.global_.offheight, height)
        self.context, self.backend = make_context(backends, width, height)
        self.mjr = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_150)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self.mjr)
        self.mjr.readDepthMap = mujoco.mjtDepthMap.mjDEPTH_ZEROFAR
        self.scene = mujoco.MjvScene(model, maxgeom=10000)
        self.option = mujoco.MjvOption()
        self.camera = mujoco.MjvCamera()
        self.camera.type = mujoco.mjtCamera.mjCAMERA_FIXED
        extent = model.stat.extent
        self.near = np.float32(model.vis.map.znear * extent)
        self.far = np.float32(model.vis.map.zfar * extent)

    def render(self, data: mujoco.MjData, wanted: list[tuple[str, tuple[str, ...]]]) -> list[Rendered]:
        # On this thread, not the serving one: whatever the simulation had computed of its state, the
        # picture is of positions, orientations and lights computed from it.
        mujoco.mj_forward(self.model, data)
        out: list[Rendered] = []
        for name, kinds in wanted:
            described = self.cameras[name]
            w, h = described.width, described.height
            rect = mujoco.MjrRect(0, 0, w, h)
            self.camera.fixedcamid = self.ids[name]
            mujoco.mjv_updateScene(self.model, data, self.option, None, self.camera, mujoco.mjtCatBit.mjCAT_ALL,
                                   self.scene)
            images: dict[str, np.ndarray] = {}
            if "rgb" in kinds:
                rgb = np.empty((h, w, 3), np.uint8)
                mujoco.mjr_render(rect, self.scene, self.mjr)
                mujoco.mjr_readPixels(rgb, None, rect, self.mjr)
                images["rgb"] = rgb
            if "depth" in kinds or "segmentation" in kinds:
                images.update(self._segmented(rect, w, h, kinds))
            for kind in kinds:
                out.append((name, kind, w, h, float(data.time), np.ascontiguousarray(np.flipud(images[kind]))))
        return out

    def _segmented(self, rect: mujoco.MjrRect, w: int, h: int, kinds: tuple[str, ...]) -> dict[str, np.ndarray]:
        """Depth and segmentation from one render in segmentation colours, as mujoco.Renderer renders them."""
        flags = self.scene.flags
        saved = flags.copy()
        flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = True
        flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = True
        try:
            ids = np.empty((h, w, 3), np.uint8) if "segmentation" in kinds else None
            depth = np.empty((h, w), np.float32) if "depth" in kinds else None
            mujoco.mjr_render(rect, self.scene, self.mjr)
            mujoco.mjr_readPixels(ids, depth, rect, self.mjr)
        finally:
            np.copyto(flags, saved)
        out: dict[str, np.ndarray] = {}
        if depth is not None:
            out["depth"] = self._metres(depth)
        if ids is not None:
            out["segmentation"] = self._geom_ids(ids)
        return out

    def _metres(self, depth: np.ndarray) -> np.ndarray:
        """OpenGL's reversed-z depth as metres along the optical axis (the perspective projection undone)."""
        near, far = self.near, self.far
        c = -(far + near) / (far - near)
        d = -(np.float32(2) * far * near) / (far - near)
        c = np.float32(-0.5) * c - np.float32(0.5)
        d = np.float32(-0.5) * d
        return (d / (depth.astype(np.float64) + c)).astype(np.float32)

    def _geom_ids(self, colours: np.ndarray) -> np.ndarray:
        """The geom id seen at each pixel, from the segmentation colours (-1: background or not a geom)."""
        segment = colours.astype(np.int32)
        segment = segment[..., 0] + (segment[..., 1] << 8) + (segment[..., 2] << 16)
        scene = self.scene
        lookup = np.full(scene.ngeom + 1, -1, np.int32)
        for g in scene.geoms[: scene.ngeom]:
            if g.segid != -1 and g.objtype == _GEOM:
                lookup[g.segid + 1] = g.objid
        return lookup[np.clip(segment, 0, scene.ngeom)]

    def close(self) -> None:
        self.mjr.free()
        self.context.free()
