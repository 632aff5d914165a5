"""The "images" extension through the one codec, and the arrays a controller reads images as."""

from __future__ import annotations

import numpy as np
import pytest

from coupler import _native
from coupler.controller.camera_images import CameraImages, CameraRequest, image_requests
from coupler.controller.sensor_readings import SensorReadings
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error
from coupler.wire.messages import (
    CameraDescription,
    ControlMessage,
    HandshakeMessage,
    Image,
    ImageRequest,
    SensorMessage,
    SensorRequestMessage,
    ValueType,
)


def test_cameras_and_image_requests_survive_encode_and_decode():
    camera = CameraDescription(name="overview", width=320, height=240, kinds=["rgb", "depth"], fx=257.3, fy=257.3,
                               cx=159.5, cy=119.5, near=0.02, far=100.0, body="world", position=[0.1, -0.7, 1.45],
                               quaternion=[0.94, 0.34, 0.0, 0.0])
    handshake = HandshakeMessage(cameras={"overview": camera}, max_image_width=4096, max_image_height=4096,
                                 control_type=ValueType.MULTIPLE)
    assert decode(encode(handshake)) == handshake
    control = ControlMessage(images=[ImageRequest("overview", ["rgb"], every=3), ImageRequest("wrist", ["depth"])])
    assert decode(encode(control)) == control
    read = SensorRequestMessage(images=[ImageRequest("overview", ["segmentation"])])
    assert decode(encode(read)) == read


def test_image_fields_appended_to_a_sensor_frame_make_the_frame_with_those_images():
    depth = np.arange(6, dtype=np.float32).reshape(2, 3)
    fields = _native.encode_image_fields([("overview", "depth", 3, 2, 0.5, depth)])
    message = SensorMessage(simulated_time=0.5, images=[Image("overview", "depth", 3, 2, 0.5, depth.tobytes())])
    assert encode(SensorMessage(simulated_time=0.5)) + fields == encode(message)


def test_a_trace_shows_an_image_without_its_bytes():
    assert "data" not in repr(Image("overview", "rgb", 1, 1, 0.0, b"\x01\x02\x03"))


def images_of(images: list[Image]) -> dict[str, CameraImages]:
    """The images as a controller's readings of a Sensor answer carrying them give them."""
    return SensorReadings(HandshakeMessage(), SensorMessage(simulated_time=0.5, images=images)).images


def test_images_are_read_as_arrays_of_their_kind_viewing_the_frame_bytes():
    data = np.arange(6, dtype=np.float32).tobytes()
    read = images_of([Image("overview", "depth", 3, 2, 0.5, data)])["overview"]
    assert read.depth.shape == (2, 3) and read.depth.dtype == np.float32 and read.depth[1, 0] == 3.0
    assert read.rgb is None and read.time == 0.5
    assert not read.depth.flags.writeable  # a view of the received bytes, not a copy


def test_an_image_whose_data_does_not_fill_its_size_is_refused_naming_both():
    with pytest.raises(Error, match=r"the depth image of camera 'overview' has 8 bytes; 3x2 takes 24"):
        images_of([Image("overview", "depth", 3, 2, 0.0, b"\0" * 8)])


def test_what_to_ask_for_is_a_kind_several_kinds_or_a_request_with_a_rate():
    assert image_requests({"a": "rgb", "b": ("rgb", "depth"), "c": CameraRequest(("depth",), every=4)}) == [
        ImageRequest("a", ["rgb"]), ImageRequest("b", ["rgb", "depth"]), ImageRequest("c", ["depth"], every=4)]
