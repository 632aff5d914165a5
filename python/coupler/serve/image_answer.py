"""The images a Control or a SensorRequest asks for (the "images" extension), checked and rendered.

A request for images is checked whole before anything is applied: an
unknown camera or kind, a rate of 0, or a camera named twice refuses the
Control (or the read) with one line naming the problem, and the simulation
keeps its state. The images are rendered from the state the answer reports
and appended to its sensor frame, so a request for none costs nothing here.

`every` N renders a camera only when the answer's step is a multiple of N
steps (for a Control of several steps: when its steps pass one), so a
controller asking with every Control gets images at 1/N of its rate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Protocol

import numpy as np

from coupler import _native
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import IMAGE_BYTES_PER_PIXEL, IMAGE_KINDS, CameraDescription, ErrorCode
from coupler.wire.name_list import valid_names
from coupler.wire.peer_text import shown

# What a request asks for: (camera, kinds, every or None) each, as coupler._native.Request.image_requests reads it.
Wanted = Sequence[tuple[str, tuple[str, ...], int | None]]
# How long an answer waits for its images at most (seconds): a stuck driver must not stall the server for ever.
RENDER_TIMEOUT = 30.0


Rendered = list[tuple[str, str, int, int, float, np.ndarray]]


class ImageSource(Protocol):
    """What renders a scene's cameras (`coupler.mujoco.offscreen_cameras.OffscreenCameras`)."""

    cameras: dict[str, CameraDescription]

    def submit(self, wanted: list[tuple[str, tuple[str, ...]]]) -> Future[Rendered]: ...

    def render(self, wanted: list[tuple[str, tuple[str, ...]]], timeout: float) -> Rendered: ...

    def submit_worlds(self, wanted: list[tuple[str, tuple[str, ...]]],
                      states: Sequence[object]) -> Future[dict[str, dict[str, np.ndarray]]]: ...

    def render_worlds(self, wanted: list[tuple[str, tuple[str, ...]]], states: Sequence[object],
                      timeout: float) -> dict[str, dict[str, np.ndarray]]: ...


SHARED_ALIGNMENT = 64  # bytes: each image's pixels in a shared buffer start at a multiple of this
# Bytes of an image's fields besides its pixels, at most, as the C++ client counts them (coupler/wire/frame_bytes.hpp).
IMAGE_OVERHEAD: int = _native.limits.image_overhead


def _refused(text: str) -> ProtocolError:
    return ProtocolError(text, ErrorCode.CONTROL_MISMATCH)


class ImageAnswer:
    """Checks and renders the images of requests, for a scene served with `source` (None: no cameras, for
    `unavailable`'s reason)."""

    def __init__(self, source: ImageSource | None, time_step: float, unavailable: str = "",
                 max_frame_bytes: int = 0, state_bytes: int = 0) -> None:
        self.source = source
        self.time_step = time_step
        self.unavailable = unavailable or "this scene serves no cameras"
        # The largest frame sent (0: no limit), the client's default too: a larger one would never arrive.
        self.max_frame_bytes = max_frame_bytes
        self.state_bytes = state_bytes  # what the answer's readings take besides the images, at most
        # Pixels of this many bytes or more, up to a buffer's size, go through shared memory, not the socket
        # (coupler.serve.shared_images; 0 and 0: no shared memory).
        self.shared_min_bytes = 0
        self.shared_slot_bytes = 0

    def largest_answer_bytes(self) -> int:
        """The most pixel bytes one answer can carry: every camera's every kind."""
        cameras = self.source.cameras.values() if self.source is not None else ()
        return sum(_aligned(camera.width * camera.height * IMAGE_BYTES_PER_PIXEL[kind]) for camera in cameras
                   for kind in camera.kinds)

    def check(self, wanted: Wanted, shared: bool = False) -> None:
        """Raise ProtocolError (CONTROL_MISMATCH) naming the first problem of `wanted`; `shared`: asked through
        shared memory, whose pixels do not cross the socket and so do not count against the frame limit."""
        if self.source is None:
            raise _refused(f"images asked for, but {self.unavailable}")
        cameras = self.source.cameras
        seen: set[str] = set()
        for camera, kinds, every in wanted:
            if camera not in cameras:
                raise _refused(f"no camera named {shown(camera)!r}; {valid_names(list(cameras))}")
            if camera in seen:
                raise _refused(f"camera {shown(camera)!r} is asked for twice in one request")
            seen.add(camera)
            if not kinds:
                raise _refused(f"camera {shown(camera)!r} is asked for no kind of image; the kinds are "
                               f"{', '.join(IMAGE_KINDS)}")
            for kind in kinds:
                if kind not in cameras[camera].kinds:
                    raise _refused(f"camera {shown(camera)!r} renders no {shown(kind)!r} images; it renders "
                                   f"{', '.join(cameras[camera].kinds)}")
            if len(set(kinds)) != len(kinds):
                raise _refused(f"camera {shown(camera)!r}: a kind of image is asked for twice")
            if every is not None and every < 1:
                raise _refused(f"camera {shown(camera)!r}: every {every} steps; a rate is every 1 step or more")
        sizes = [cameras[camera].width * cameras[camera].height * IMAGE_BYTES_PER_PIXEL[kind]
                 for camera, kinds, _ in wanted for kind in kinds]
        pixels, in_buffer = sum(sizes), 0
        for size in sizes:  # as encode_shared_image_fields lays them out in a buffer
            in_buffer = _aligned(in_buffer) + size
        if shared and self.shared_slot_bytes and pixels >= self.shared_min_bytes and \
                in_buffer <= self.shared_slot_bytes:
            pixels = 0  # as SharedImages.fields sends them: through the ring, the answer saying only where
        size = self.state_bytes + pixels + sum(IMAGE_OVERHEAD for _, kinds, _ in wanted for _ in kinds)
        if self.max_frame_bytes and size > self.max_frame_bytes:
            raise _refused(f"the images asked for make an answer of about {size} bytes, over the "
                           f"{self.max_frame_bytes}-byte frame limit (coupler serve --max-frame-bytes, and the "
                           "client's max_frame_bytes); ask for fewer or smaller images, or raise both limits")

    def due(self, wanted: Wanted, simulated_time: float, steps: int) -> list[tuple[str, tuple[str, ...]]]:
        """The cameras of `wanted` (with their kinds) due in the answer reporting `simulated_time`, reached by
        `steps` steps (0: a read)."""
        step = round(simulated_time / self.time_step) if self.time_step > 0 else 0
        return [(camera, tuple(kinds)) for camera, kinds, every in wanted if _due(every, step, steps)]

    def submit(self, due: list[tuple[str, tuple[str, ...]]]) -> Future[Rendered]:
        """Start rendering `due` of the state now (copied before this returns); the images' future."""
        assert self.source is not None
        return self.source.submit(due)

    def fields(self, wanted: Wanted, simulated_time: float, steps: int,
               encode: Callable[[Rendered], bytes] | None = None) -> bytes:
        """The images field of the answer reporting `simulated_time`, rendered now (and encoded by `encode`,
        default `encoded`)."""
        due = self.due(wanted, simulated_time, steps)
        if not due:
            return b""
        assert self.source is not None
        return (encode or encoded)(self.source.render(due, RENDER_TIMEOUT))


def encoded(rendered: Rendered) -> bytes:
    """The images field of a SensorMessage holding `rendered`."""
    return _native.encode_image_fields(rendered)


def _aligned(size: int) -> int:
    """`size` rounded up to where the next image starts in a shared buffer (python/native/shared_ring_binding.cpp)."""
    return (size + SHARED_ALIGNMENT - 1) // SHARED_ALIGNMENT * SHARED_ALIGNMENT


def _due(every: int | None, step: int, steps: int) -> bool:
    """Whether a camera asked for every `every` steps is rendered at `step`, reached by `steps` steps."""
    if every is None or every == 1:
        return True
    if steps <= 0:
        return step % every == 0
    return math.floor(step / every) > math.floor((step - steps) / every)
