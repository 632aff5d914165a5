"""Camera images for a controller (the "images" extension): what to ask for, and the arrays that come back.

    readings = session.step(controls, images={"overview": ("rgb", "depth")})
    picture = readings.images["overview"]
    picture.rgb      # (H, W, 3) uint8, row 0 the top of the picture
    picture.depth    # (H, W) float32, metres along the optical axis
    picture.time     # the simulated time it shows

The arrays are views of the received frame's bytes (or of the shared memory
they came through), not copies; they are read-only. The C++
`coupler::camera_images` reads them, through `coupler::SensorReadings`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from coupler.wire.messages import ImageRequest


@dataclass(frozen=True)
class CameraRequest:
    """Images of one camera, with a rate: `every` N steps only (when the answer's step is a multiple of N)."""

    kinds: tuple[str, ...]
    every: int | None = None


# What step() and sensors() take per camera: a kind, several kinds, or a CameraRequest.
Asked = str | Sequence[str] | CameraRequest


def image_requests(images: Mapping[str, Asked]) -> list[ImageRequest]:
    """The requests of `images` (camera name -> what of it), as a Control or SensorRequest carries them."""
    requests = []
    for camera, asked in images.items():
        if isinstance(asked, CameraRequest):
            requests.append(ImageRequest(camera=camera, kinds=list(asked.kinds), every=asked.every))
        else:
            kinds = [asked] if isinstance(asked, str) else list(asked)
            requests.append(ImageRequest(camera=camera, kinds=kinds))
    return requests


@dataclass
class CameraImages:
    """One camera's images of one state; a kind not asked for (or not due at its rate) is None."""

    time: float  # s, the simulated time they show
    rgb: np.ndarray | None = None  # (H, W, 3) uint8
    depth: np.ndarray | None = None  # (H, W) float32, m along the optical axis
    segmentation: np.ndarray | None = None  # (H, W) int32 geom ids, -1 where no geom is seen

