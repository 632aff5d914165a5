"""The frame limit counts what crosses the socket: images whose pixels travel through shared memory count only
the fields that say where they lie."""

from __future__ import annotations

import pytest

from coupler.scenes import load_scene
from coupler.serve.image_answer import ImageAnswer
from coupler.serve.native_responder import NativeResponder
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import CameraDescription

MIB = 1 << 20
DEPTH_640X480 = [("eye", ("depth",), None)]  # 1.2 MB of pixels: over the default 1 MiB frame limit


class LargeCamera:
    """An image source of one 640x480 depth camera; nothing here renders."""

    cameras = {"eye": CameraDescription(name="eye", width=640, height=480, kinds=["depth"])}


def _answer() -> ImageAnswer:
    answer = ImageAnswer(LargeCamera(), 0.002, max_frame_bytes=MIB, state_bytes=100)
    answer.shared_min_bytes, answer.shared_slot_bytes = 16384, 2 * MIB
    return answer


def test_an_image_over_the_frame_limit_through_shared_memory_is_accepted():
    _answer().check(DEPTH_640X480, shared=True)


def test_the_same_image_through_the_socket_is_refused_naming_the_limit():
    with pytest.raises(ProtocolError, match=r"over the 1048576-byte frame limit"):
        _answer().check(DEPTH_640X480, shared=False)


def test_images_too_big_for_a_shared_buffer_count_against_the_frame_limit():
    answer = _answer()
    answer.shared_slot_bytes = MIB  # they would go through the socket after all
    with pytest.raises(ProtocolError, match=r"frame limit"):
        answer.check(DEPTH_640X480, shared=True)


def test_a_server_s_shared_buffers_hold_its_largest_images_whatever_its_frame_limit(tmp_path):
    simulation = load_scene("static")
    simulation.images = LargeCamera()
    responder = NativeResponder(f"ipc://{tmp_path}/large.sock", SimulationServer(simulation),
                                max_frame_bytes=MIB)
    try:
        assert responder.shared_images is not None
        assert responder.shared_images.announced.slot_bytes >= 640 * 480 * 4
        responder.images.check(DEPTH_640X480, shared=True)
    finally:
        responder.close()
