"""The images a Control for every world asks for (the "worlds" and "images" extensions together).

Such a Control names cameras and kinds as an ordinary one does, and the
worlds to render them in (`imageWorlds`, ascending; none named: every
world). Everything is checked before any world steps: an unknown camera or
kind, a world the server does not have, a rate (`every`, which an answer
for every world does not take) or an answer over the frame limit refuses
the Control with one line naming the problem. The answer then carries, per
camera and kind, one image stack holding the named worlds' pictures one
after another, rendered by one context per camera from each world's state
after the step (`coupler.mujoco.offscreen_cameras`).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any

import numpy as np

from coupler.serve.image_answer import IMAGE_OVERHEAD, ImageAnswer, Wanted
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import IMAGE_BYTES_PER_PIXEL, ErrorCode
from coupler.wire.peer_text import shown
from coupler.wire.world_frames import WorldImages


def _refused(text: str) -> ProtocolError:
    return ProtocolError(text, ErrorCode.CONTROL_MISMATCH)


class WorldImageAnswer:
    """Checks and renders the images of Controls for every one of `count` worlds, through `images` (the server's
    answer to ordinary image requests: its cameras, its frame limit)."""

    def __init__(self, images: ImageAnswer, count: int) -> None:
        self.images = images
        self.count = count

    def largest_bytes(self) -> int:
        """The most bytes the images of one answer take, laid out in a buffer of shared memory: every camera's
        every kind in every world (0 without cameras)."""
        if self.images.source is None:
            return 0
        cameras = self.images.source.cameras.values()
        return sum(self.count * camera.width * camera.height * IMAGE_BYTES_PER_PIXEL[kind] + 64
                   for camera in cameras for kind in camera.kinds) + 128

    def check(self, wanted: Wanted, image_worlds: np.ndarray, answer_bytes: int, shared_bytes: int = 0) -> list[int]:
        """The worlds to render `wanted` in; ProtocolError (CONTROL_MISMATCH) naming the first problem of the
        request. `answer_bytes`: what the answer takes without images; `shared_bytes`: the size of a buffer of
        shared memory the answer's arrays go through (0: through the socket), whose bytes do not count against
        the frame limit when they fit it."""
        if not wanted:
            if image_worlds.size:
                raise _refused("imageWorlds names worlds to render, but no camera is asked for")
            return []
        self.images.check(wanted)
        for camera, _, every in wanted:
            if every is not None:
                raise _refused(f"camera {shown(camera)!r}: every {every} steps; a Control for every world renders "
                               "its images with each answer (leave every out)")
        worlds = image_worlds.tolist()
        for k, world in enumerate(worlds):
            if world >= self.count:
                raise _refused(f"no world {world} to render: this server has {self.count} worlds "
                               f"(0 to {self.count - 1})")
            if k and world <= worlds[k - 1]:
                raise _refused(f"imageWorlds must list worlds in ascending order, each once; got "
                               f"{worlds[:10]}{' ...' if len(worlds) > 10 else ''}")
        chosen = worlds or list(range(self.count))
        cameras = self.images.source.cameras  # type: ignore[union-attr]  # checked above: it has cameras
        size = answer_bytes + sum(IMAGE_OVERHEAD + len(chosen) * cameras[camera].width * cameras[camera].height *
                                  IMAGE_BYTES_PER_PIXEL[kind] for camera, kinds, _ in wanted for kind in kinds)
        limit = self.images.max_frame_bytes
        # As encode_shared_world_sensors lays them out: sensors, data, then each image, each on a cache line.
        shared = shared_bytes and size + 64 * (2 + sum(len(kinds) for _, kinds, _ in wanted)) <= shared_bytes
        if limit and size > limit and not shared:
            raise _refused(f"the images of {len(chosen)} worlds asked for make an answer of about {size} bytes, over "
                           f"the {limit}-byte frame limit (coupler serve --max-frame-bytes, and the client's "
                           "max_frame_bytes); ask for fewer worlds or smaller images, or raise both limits")
        return chosen

    def submit(self, wanted: Wanted, states: Sequence[Any]) -> Future[dict[str, dict[str, np.ndarray]]]:
        """Start rendering every camera and kind of `wanted` of each of `states` (the worlds chosen by `check`,
        which nothing may step until it is done); the future `stacks` reads."""
        source = self.images.source
        assert source is not None
        return source.submit_worlds([(camera, tuple(kinds)) for camera, kinds, _ in wanted], states)

    @staticmethod
    def stacks(wanted: Wanted, rendered: dict[str, dict[str, np.ndarray]]) -> list[WorldImages]:
        """The stacks of `rendered` (by camera and kind) in the order `wanted` asks for them."""
        # The arrays are the renderer's, reused by its next job: the answer is encoded before that.
        return [WorldImages(camera, kind, rendered[camera][kind]) for camera, kinds, _ in wanted for kind in kinds]
