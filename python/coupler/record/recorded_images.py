"""Camera images in a recording (the "images" extension), as Foxglove's Image panel shows them.

Each image a Sensor answer carries is written again as a `foxglove.RawImage`:
rgb on `/coupler/camera/NAME`, depth on `/coupler/camera/NAME/depth` (32FC1,
metres) and segmentation on `/coupler/camera/NAME/segmentation` (32SC1, geom
ids); with the first image of a camera, its `foxglove.CameraCalibration` from
the handshake on `/coupler/camera/NAME/calibration`. The answers themselves
stay on `/coupler/answers/Sensor` as they came.

An answer to a Control for every world (`coupler serve --worlds N`) carries
one stack per camera and kind, of the worlds it names: each world K's picture
is written on topics of its own, `/coupler/world/K/camera/NAME` (and
`.../depth`, `.../segmentation`, and `.../calibration` with the camera's
first image of that world). A topic per world rather than one stacked image: Foxglove
shows one picture per Image panel, and a world's topics sit together under
its prefix, so choosing a world is choosing a folder. Like every message of
the answer, a world's image is stamped with the log time; its publish time
is world K's own simulated time, which after a reset is not the other
worlds'. Ordinary answers keep
`/coupler/camera/NAME`, world 0's on a batched server, as before.

A recording server offers no shared memory, so its answers hold their
pixels; an image whose bytes are missing or do not fill its picture is left
out, said once.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from google.protobuf.descriptor import FileDescriptor

from foxglove_schemas_protobuf import CameraCalibration_pb2, RawImage_pb2

from coupler.wire.codec import decode, decode_images
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import IMAGE_BYTES_PER_PIXEL, CameraDescription, HandshakeMessage
from coupler.wire.peer_text import shown

log = logging.getLogger(__name__)

CAMERA_TOPIC = "/coupler/camera/"
WORLD_TOPIC = "/coupler/world/"  # + K + "/camera/NAME": world K's images in an answer for every world
# Per image kind, the RawImage encoding: depth in metres as float32, segmentation geom ids as int32.
_ENCODINGS = {"rgb": "rgb8", "depth": "32FC1", "segmentation": "32SC1"}

_LATEST_SECONDS = 9.2e9  # below 2**63 ns: an MCAP publish time and a protobuf Timestamp hold it

RAW_IMAGE = (RawImage_pb2.RawImage.DESCRIPTOR.full_name, RawImage_pb2.DESCRIPTOR)
CALIBRATION = (CameraCalibration_pb2.CameraCalibration.DESCRIPTOR.full_name, CameraCalibration_pb2.DESCRIPTOR)


@dataclass(frozen=True)
class FoxgloveMessage:
    """A message to write beside a recorded answer."""

    topic: str
    schema: tuple[str, FileDescriptor]  # the protobuf message's full name, and its file
    data: bytes
    publish_time: int | None = None  # ns of simulated time it shows; None: the answer's


def camera_topic(camera: str, kind: str, world: int | None = None) -> str:
    """The topic of `camera`'s `kind` images ("calibration" for its calibration), of world `world` of a batched
    server's answers for every world (None: of ordinary answers)."""
    prefix = CAMERA_TOPIC if world is None else f"{WORLD_TOPIC}{world}/camera/"
    return prefix + camera + ("" if kind == "rgb" else "/" + kind)


def _nanoseconds(seconds: float) -> int | None:
    """`seconds` of simulated time in ns, None for a time no timestamp holds (negative, not finite, past 2**63 ns)."""
    if not 0.0 <= seconds < _LATEST_SECONDS:  # NaN fails too
        return None
    return round(seconds * 1e9)


def _stamp(stamp: object, nanoseconds: int) -> None:
    stamp.seconds, stamp.nanos = divmod(nanoseconds, 1_000_000_000)  # type: ignore[attr-defined]


class RecordedImages:
    """Turns the images of recorded answers into Foxglove messages; knows the cameras from the handshake."""

    def __init__(self) -> None:
        self._cameras: dict[str, CameraDescription] = {}
        self._calibrated: set[tuple[str, int | None]] = set()
        self._said_unfilled = False

    def saw_handshake(self, payload: bytes) -> None:
        try:
            handshake = decode(payload)
        except ProtocolError:
            return
        if isinstance(handshake, HandshakeMessage):
            self._cameras = dict(handshake.cameras)
            self._calibrated.clear()

    def messages(self, payload: bytes, log_time: int) -> list[FoxgloveMessage]:
        """The Foxglove messages the answer `payload` makes: each of its images, each world's image of its stacks,
        and a camera's calibration with its first image (per world)."""
        try:
            answer = decode_images(payload)
        except ProtocolError:
            return []
        if answer is None:
            return []
        out: list[FoxgloveMessage] = []
        for image in answer.images:
            out += self._image(image.camera, image.kind, image.width, image.height, image.data, None, log_time, None)
        if answer.world_images:
            times = answer.world_times
            worlds = answer.image_worlds or list(range(len(times)))
            for stack in answer.world_images:
                if stack.kind not in _ENCODINGS:
                    continue
                size = stack.width * stack.height * IMAGE_BYTES_PER_PIXEL[stack.kind]
                if len(stack.data) != size * len(worlds):
                    self._unfilled(stack.camera)
                    continue
                for k, world in enumerate(worlds):
                    shows = _nanoseconds(times[world]) if world < len(times) else None
                    shows = log_time if shows is None else shows
                    out += self._image(stack.camera, stack.kind, stack.width, stack.height,
                                       stack.data[k * size:(k + 1) * size], world, log_time, shows)
        return out

    def _image(self, camera: str, kind: str, width: int, height: int, data: bytes, world: int | None,
               stamp: int, publish: int | None) -> list[FoxgloveMessage]:
        """The RawImage of one picture (and the calibration with a camera's first), stamped `stamp` (ns, the log
        time, as the body poses are, so that a 3D panel finds the poses of an image's time) and published at
        `publish` (ns of simulated time; None: the answer's)."""
        encoding = _ENCODINGS.get(kind)
        if encoding is None:
            return []
        pixel = IMAGE_BYTES_PER_PIXEL[kind]
        if len(data) != width * height * pixel:
            self._unfilled(camera)
            return []
        raw = RawImage_pb2.RawImage(frame_id=camera, width=width, height=height, encoding=encoding,
                                    step=width * pixel, data=data)
        _stamp(raw.timestamp, stamp)
        out = [FoxgloveMessage(camera_topic(camera, kind, world), RAW_IMAGE, raw.SerializeToString(), publish)]
        calibration = self._calibration(camera, world, stamp)
        if calibration is not None:
            out.append(FoxgloveMessage(camera_topic(camera, "calibration", world), CALIBRATION, calibration, publish))
        return out

    def _unfilled(self, camera: str) -> None:
        if not self._said_unfilled:
            self._said_unfilled = True
            log.warning("an image of camera %r in a recorded answer does not hold its pixels: left out of the "
                        "Foxglove images (and any other such image, unsaid)", shown(camera))

    def _calibration(self, name: str, world: int | None, stamp: int) -> bytes | None:
        camera = self._cameras.get(name)
        if camera is None or (name, world) in self._calibrated:
            return None
        self._calibrated.add((name, world))
        fx, fy, cx, cy = camera.fx, camera.fy, camera.cx, camera.cy
        calibration = CameraCalibration_pb2.CameraCalibration(
            frame_id=name, width=camera.width, height=camera.height, distortion_model="plumb_bob", D=[0.0] * 5,
            K=[fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0], R=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            P=[fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0])
        _stamp(calibration.timestamp, stamp)
        return calibration.SerializeToString()
