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
        self._jobs: queue.Queue[_Job | _WorldsJob | None] = queue.Queue()
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
        # What the picture depends on, not the whole arena: this runs between the request and its render.
        _copy_state(self.model, self.source, state)
        done: Future[list[Rendered]] = Future()
        self._jobs.put(_Job(wanted, state, done))
        return done

    def render(self, wanted: list[tuple[str, tuple[str, ...]]], timeout: float) -> list[Rendered]:
        """`submit`, waited for: TimeoutError when rendering takes over `timeout` seconds."""
        return self.submit(wanted).result(timeout)

    def submit_worlds(self, wanted: list[tuple[str, tuple[str, ...]]],
                      states: Sequence[mujoco.MjData]) -> Future[dict[str, dict[str, np.ndarray]]]:
        """Start rendering the images of `wanted` ((camera, kinds) each) of each of `states` (mjData of this model,
        one per world); their future: by camera and kind, stacked, (len(states), H, W, 3) uint8 rgb,
        (len(states), H, W) float32 depth and int32 segmentation.

        The rendering thread reads the states themselves, with one context and
        one scene for all of them: nothing may step them until the future is
        done. The arrays are made once per camera and count and reused by the
        next job: encode them before submitting another.
        """
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="coupler-cameras", daemon=True)
                self._thread.start()
        done: Future[dict[str, dict[str, np.ndarray]]] = Future()
        self._jobs.put(_WorldsJob(list(wanted), list(states), done))
        return done

    def render_worlds(self, wanted: list[tuple[str, tuple[str, ...]]], states: Sequence[mujoco.MjData],
                      timeout: float) -> dict[str, dict[str, np.ndarray]]:
        """`submit_worlds`, waited for: TimeoutError when rendering takes over `timeout` seconds."""
        return self.submit_worlds(wanted, states).result(timeout)

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
                if isinstance(job, _WorldsJob):
                    try:
                        job.done.set_result({camera: renderer.render_worlds(job.states, camera, kinds)
                                             for camera, kinds in job.wanted})
                    except Exception as error:  # reported to the one who asked; the thread goes on
                        job.done.set_exception(error)
                    continue
                failure: Exception | None = None
                try:
                    rendered = renderer.render(job.state, job.wanted)
                except Exception as error:  # reported to the one who asked; the thread goes on
                    failure, rendered = error, []
                # The images are apart from the state: it is spare before they are handed over, so that this
                # thread waits (without the GIL) as soon as the serving thread wakes to send them.
                with self._lock:
                    self._spare.append(job.state)
                if failure is not None:
                    job.done.set_exception(failure)
                else:
                    job.done.set_result(rendered)
        finally:
            renderer.close()


@dataclass
class _Job:
    wanted: list[tuple[str, tuple[str, ...]]]
    state: mujoco.MjData  # a copy of the simulation's, taken when the images were asked for
    done: Future[list[Rendered]]


@dataclass
class _WorldsJob:
    wanted: list[tuple[str, tuple[str, ...]]]
    states: list[mujoco.MjData]  # the worlds' own: read by the rendering thread while nothing steps them
    done: Future[dict[str, dict[str, np.ndarray]]]


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
        self.state = mujoco.MjData(model)  # a world's state rendered: copied, so that the world's own stays untouched
        # Per (camera, worlds): the arrays the worlds' images are read into (rows bottom-up) and handed over in.
        self._stacks: dict[tuple[str, int], tuple[dict[str, np.ndarray], dict[str, np.ndarray]]] = {}

    def render_worlds(self, states: list[mujoco.MjData], name: str,
                      kinds: tuple[str, ...]) -> dict[str, np.ndarray]:
        """Camera `name`'s `kinds` of each of `states`, stacked (see OffscreenCameras.render_worlds)."""
        described = self.cameras[name]
        w, h, n = described.width, described.height, len(states)
        read, out = self._stack(name, n, w, h)
        rect = mujoco.MjrRect(0, 0, w, h)
        self.camera.fixedcamid = self.ids[name]
        segmented = "depth" in kinds or "segmentation" in kinds
        state = self.state
        for k, world in enumerate(states):
            _copy_state(self.model, world, state)
            mujoco.mj_forward(self.model, state)
            mujoco.mjv_updateScene(self.model, state, self.option, None, self.camera, mujoco.mjtCatBit.mjCAT_ALL,
                                   self.scene)
            if "rgb" in kinds:
                mujoco.mjr_render(rect, self.scene, self.mjr)
                mujoco.mjr_readPixels(read["rgb"][k], None, rect, self.mjr)
            if segmented:
                ids = read["ids"][k] if "segmentation" in kinds else None
                self._render_segmented(rect, ids, read["depth"][k] if "depth" in kinds else None)
                if ids is not None:
                    # The scene's segment ids are its geoms' places in this world's scene: looked up now.
                    out["segmentation"][k] = self._geom_ids(ids)[::-1]
        if "rgb" in kinds:
            np.copyto(out["rgb"], read["rgb"][:, ::-1])
        if "depth" in kinds:
            np.copyto(out["depth"], self._metres(read["depth"][:, ::-1]))
        return {kind: out[kind] for kind in kinds}

    def _stack(self, name: str, n: int, w: int, h: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        made = self._stacks.get((name, n))
        if made is None:
            read = {"rgb": np.empty((n, h, w, 3), np.uint8), "ids": np.empty((n, h, w, 3), np.uint8),
                    "depth": np.empty((n, h, w), np.float32)}
            out = {"rgb": np.empty((n, h, w, 3), np.uint8), "depth": np.empty((n, h, w), np.float32),
                   "segmentation": np.empty((n, h, w), np.int32)}
            made = self._stacks[(name, n)] = (read, out)
        return made

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
        ids = np.empty((h, w, 3), np.uint8) if "segmentation" in kinds else None
        depth = np.empty((h, w), np.float32) if "depth" in kinds else None
        self._render_segmented(rect, ids, depth)
        out: dict[str, np.ndarray] = {}
        if depth is not None:
            out["depth"] = self._metres(depth)
        if ids is not None:
            out["segmentation"] = self._geom_ids(ids)
        return out

    def _render_segmented(self, rect: mujoco.MjrRect, ids: np.ndarray | None, depth: np.ndarray | None) -> None:
        """One render in segmentation colours, read into `ids` (colours) and `depth` (OpenGL's), rows bottom-up."""
        flags = self.scene.flags
        saved = flags.copy()
        flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = True
        flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = True
        try:
            mujoco.mjr_render(rect, self.scene, self.mjr)
            mujoco.mjr_readPixels(ids, depth, rect, self.mjr)
        finally:
            np.copyto(flags, saved)

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


def _copy_state(model: mujoco.MjModel, source: mujoco.MjData, target: mujoco.MjData) -> None:
    """What a picture of `source` depends on, into `target`: its time, physics state and mocap poses (mj_forward then
    computes the rest). mj_copyData would copy the whole arena, far more than this for every world."""
    target.time = source.time
    target.qpos[:] = source.qpos
    target.qvel[:] = source.qvel
    target.act[:] = source.act
    target.ctrl[:] = source.ctrl
    if model.nmocap:
        target.mocap_pos[:] = source.mocap_pos
        target.mocap_quat[:] = source.mocap_quat
