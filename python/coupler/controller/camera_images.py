"""Camera images for a controller (the "images" extension): what to ask for, and the arrays that come back.

    readings = session.step(controls, images={"overview": ("rgb", "depth")})
    picture = readings.images["overview"]
    picture.rgb      # (H, W, 3) uint8, row 0 the top of the picture
    picture.depth    # (H, W) float32, metres along the optical axis
    picture.time     # the simulated time it shows

The arrays are views of the received frame's bytes, not copies; they are
read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from coupler.wire.errors import Error
from coupler.wire.messages import IMAGE_KINDS, Image, ImageRequest


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


_DTYPES = {"rgb": np.dtype(np.uint8), "depth": np.dtype("<f4"), "segmentation": np.dtype("<i4")}
_CHANNELS = {"rgb": 3, "depth": 1, "segmentation": 1}


@dataclass
class CameraImages:
    """One camera's images of one state; a kind not asked for (or not due at its rate) is None."""

    time: float  # s, the simulated time they show
    rgb: np.ndarray | None = None  # (H, W, 3) uint8
    depth: np.ndarray | None = None  # (H, W) float32, m along the optical axis
    segmentation: np.ndarray | None = None  # (H, W) int32 geom ids, -1 where no geom is seen


def _array(image: Image) -> np.ndarray:
    # Read with every answer that carries images: plain arithmetic, no NumPy calls but the view itself.
    dtype = _DTYPES.get(image.kind)
    if dtype is None:
        raise Error(f"an image of camera '{image.camera}' is of unknown kind '{image.kind}'; the kinds are "
                    f"{', '.join(IMAGE_KINDS)}")
    channels = _CHANNELS[image.kind]
    expected = image.height * image.width * channels * dtype.itemsize
    if len(image.data) != expected:
        raise Error(f"the {image.kind} image of camera '{image.camera}' has {len(image.data)} bytes; "
                    f"{image.width}x{image.height} takes {expected}")
    shape = (image.height, image.width, channels) if channels > 1 else (image.height, image.width)
    return np.frombuffer(image.data, dtype).reshape(shape)


def camera_images(images: Sequence[Image]) -> dict[str, CameraImages]:
    """The images of a SensorMessage by camera; coupler.Error for an image whose size does not match its data."""
    out: dict[str, CameraImages] = {}
    for image in images:
        pictures = out.get(image.camera)
        if pictures is None:
            pictures = out[image.camera] = CameraImages(time=image.time)
        setattr(pictures, image.kind, _array(image))
    return out
