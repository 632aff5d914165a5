"""Camera images in a recording (the "images" extension), as Foxglove's Image panel shows them.

Each image a Sensor answer carries is written again as a `foxglove.RawImage`:
rgb on `/coupler/camera/NAME`, depth on `/coupler/camera/NAME/depth` (32FC1,
metres) and segmentation on `/coupler/camera/NAME/segmentation` (32SC1, geom
ids); with the first image of a camera, its `foxglove.CameraCalibration` from
the handshake on `/coupler/camera/NAME/calibration`. The answers themselves
stay on `/coupler/answers/Sensor` as they came.
"""

from __future__ import annotations

from google.protobuf.descriptor import FileDescriptor
from google.protobuf.message import DecodeError

from foxglove_schemas_protobuf import CameraCalibration_pb2, RawImage_pb2

from coupler._proto import coupler_pb2

CAMERA_TOPIC = "/coupler/camera/"
# The images field (102, length-delimited) of a SensorMessage: frames without these bytes carry no image.
_IMAGES_TAG = b"\xb2\x06"
# Per kind: the RawImage encoding, and its bytes per pixel.
_ENCODINGS = {"rgb": ("rgb8", 3), "depth": ("32FC1", 4), "segmentation": ("32SC1", 4)}

RAW_IMAGE = (RawImage_pb2.RawImage.DESCRIPTOR.full_name, RawImage_pb2.DESCRIPTOR)
CALIBRATION = (CameraCalibration_pb2.CameraCalibration.DESCRIPTOR.full_name, CameraCalibration_pb2.DESCRIPTOR)


def _stamp(stamp: object, nanoseconds: int) -> None:
    stamp.seconds, stamp.nanos = divmod(nanoseconds, 1_000_000_000)  # type: ignore[attr-defined]


class RecordedImages:
    """Turns the images of recorded answers into Foxglove messages; knows the cameras from the handshake."""

    def __init__(self) -> None:
        self._cameras: dict[str, coupler_pb2.Camera] = {}
        self._calibrated: set[str] = set()

    def saw_handshake(self, payload: bytes) -> None:
        try:
            handshake = coupler_pb2.HandshakeMessage.FromString(payload)
        except DecodeError:
            return
        self._cameras = {camera.name: camera for camera in handshake.cameras}
        self._calibrated.clear()

    def messages(self, payload: bytes, log_time: int) -> list[tuple[str, tuple[str, FileDescriptor], bytes]]:
        """(topic, (schema name, file), data) for each Foxglove message the answer `payload` makes."""
        if _IMAGES_TAG not in payload:
            return []
        try:
            images = coupler_pb2.SensorMessage.FromString(payload).images
        except DecodeError:
            return []
        out = []
        for image in images:
            encoding = _ENCODINGS.get(image.kind)
            if encoding is None:
                continue
            raw = RawImage_pb2.RawImage(frame_id=image.camera, width=image.width, height=image.height,
                                        encoding=encoding[0], step=image.width * encoding[1], data=image.data)
            _stamp(raw.timestamp, log_time)
            suffix = "" if image.kind == "rgb" else "/" + image.kind
            out.append((CAMERA_TOPIC + image.camera + suffix, RAW_IMAGE, raw.SerializeToString()))
            calibration = self._calibration(image.camera, log_time)
            if calibration is not None:
                out.append((CAMERA_TOPIC + image.camera + "/calibration", CALIBRATION, calibration))
        return out

    def _calibration(self, name: str, log_time: int) -> bytes | None:
        camera = self._cameras.get(name)
        if camera is None or name in self._calibrated:
            return None
        self._calibrated.add(name)
        fx, fy, cx, cy = camera.fx, camera.fy, camera.cx, camera.cy
        calibration = CameraCalibration_pb2.CameraCalibration(
            frame_id=name, width=camera.width, height=camera.height, distortion_model="plumb_bob", D=[0.0] * 5,
            K=[fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0], R=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            P=[fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0])
        _stamp(calibration.timestamp, log_time)
        return calibration.SerializeToString()
