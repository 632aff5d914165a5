"""Images (the "images" extension) on the serving side: they render aside (while a controller's answer
waits for its images, the lockstep loop serves everyone else, then sends that answer with them), an answer
they would make too large to arrive is refused, and images that never finish are given up on in one line."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future

import numpy as np
import pytest
import zmq

from coupler.scenes import load_scene
from coupler.serve.image_answer import ImageAnswer
from coupler.wire.errors import ProtocolError
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.simulation_server import SimulationServer
from coupler.wire.codec import decode, encode
from coupler.wire.messages import (CameraDescription, ControlMessage, ErrorCode, ErrorMessage, ImageRequest, SensorMessage,
                                   SensorRequestMessage)


class HeldCameras:
    """An image source whose images are done only when the test says."""

    cameras = {"eye": CameraDescription(name="eye", width=2, height=1, kinds=["depth"])}

    def __init__(self) -> None:
        self.jobs: list[Future] = []

    def submit(self, due):
        job: Future = Future()
        self.jobs.append(job)
        return job

    def render(self, due, timeout):
        return self.submit(due).result(timeout)


def _socket(context: zmq.Context, address: str) -> zmq.Socket:
    socket = context.socket(zmq.REQ)
    socket.linger = 0
    socket.rcvtimeo = 5000
    socket.connect(address)
    return socket


def test_a_reader_is_answered_while_the_controllers_images_render(tmp_path):
    simulation = load_scene("static")
    cameras = HeldCameras()
    simulation.images = cameras
    address = f"ipc://{tmp_path}/images.sock"
    sim = SimulationServer(simulation)
    responder = NativeResponder(address, sim)
    stop = threading.Event()
    loop = threading.Thread(target=LockstepLoop(responder).run, args=(stop, 0.05))
    loop.start()
    context = zmq.Context.instance()
    controller, reader = _socket(context, address), _socket(context, address)
    try:
        controller.send(encode(ControlMessage(images=[ImageRequest("eye", ["depth"])])))
        deadline = time.monotonic() + 5.0
        while not cameras.jobs and time.monotonic() < deadline:
            time.sleep(0.005)
        assert len(cameras.jobs) == 1
        reader.send(encode(SensorRequestMessage()))
        read = decode(reader.recv())
        assert isinstance(read, SensorMessage) and not read.images
        assert controller.poll(50) == 0  # its images are not done: its answer waits
        depth = np.array([1.5, 2.5], np.float32)
        cameras.jobs[0].set_result([("eye", "depth", 2, 1, read.simulated_time, depth)])
        answer = decode(controller.recv())
        assert isinstance(answer, SensorMessage) and answer.simulated_time > 0
        assert [(i.camera, i.kind, i.data) for i in answer.images] == [("eye", "depth", depth.tobytes())]
    finally:
        controller.close()
        reader.close()
        stop.set()
        loop.join(timeout=10)
        responder.close()
    assert not loop.is_alive()


def test_images_that_would_make_an_answer_over_the_frame_limit_are_refused_naming_it():
    answer = ImageAnswer(HeldCameras(), 0.002, max_frame_bytes=1000, state_bytes=700)
    answer.check([("eye", ("depth",), None)])  # 8 bytes of pixels: within the limit with the fields' share
    with pytest.raises(ProtocolError, match=r"over the 1000-byte frame limit \(coupler serve --max-frame-bytes"):
        ImageAnswer(HeldCameras(), 0.002, max_frame_bytes=1000, state_bytes=1000).check([("eye", ("depth",), None)])


def test_a_controller_asking_again_before_its_images_are_done_reads_its_answers_in_order(tmp_path):
    simulation = load_scene("static")
    cameras = HeldCameras()
    simulation.images = cameras
    address = f"ipc://{tmp_path}/order.sock"
    responder = NativeResponder(address, SimulationServer(simulation))
    stop = threading.Event()
    loop = threading.Thread(target=LockstepLoop(responder).run, args=(stop, 0.05))
    loop.start()
    # A client that timed out and asks again: it sends without waiting for the answer.
    impatient = zmq.Context.instance().socket(zmq.DEALER)
    impatient.linger = 0
    impatient.connect(address)
    try:
        impatient.send_multipart([b"", encode(ControlMessage(images=[ImageRequest("eye", ["depth"])]))])
        deadline = time.monotonic() + 5.0
        while not cameras.jobs and time.monotonic() < deadline:
            time.sleep(0.005)
        impatient.send_multipart([b"", encode(SensorRequestMessage())])
        assert impatient.poll(100) == 0
        cameras.jobs[0].set_result([("eye", "depth", 2, 1, 0.0, np.array([1.5, 2.5], np.float32))])
        answers = []
        for _ in range(2):
            assert impatient.poll(5000)
            answers.append(decode(impatient.recv_multipart()[-1]))
        assert [len(answer.images) for answer in answers] == [1, 0]
    finally:
        impatient.close()
        stop.set()
        loop.join(timeout=10)
        responder.close()
    assert not loop.is_alive()


def test_images_that_never_finish_are_answered_in_one_line_once_rendering_has_taken_too_long(tmp_path, monkeypatch):
    monkeypatch.setattr("coupler.serve.native_responder.RENDER_TIMEOUT", 0.3)
    simulation = load_scene("static")
    cameras = HeldCameras()  # whose images are never done
    simulation.images = cameras
    address = f"ipc://{tmp_path}/stalled.sock"
    sim = SimulationServer(simulation)
    responder = NativeResponder(address, sim)
    stop = threading.Event()
    loop = threading.Thread(target=LockstepLoop(responder).run, args=(stop, 0.05))
    loop.start()
    controller = _socket(zmq.Context.instance(), address)
    try:
        controller.send(encode(ControlMessage(images=[ImageRequest("eye", ["depth"])])))
        stalled = decode(controller.recv())
        assert isinstance(stalled, ErrorMessage) and stalled.code == ErrorCode.INTERNAL_ERROR
        assert stalled.text == "the Control was applied, but its images could not be rendered: rendering took too long"
        assert sim.stats.errors_sent == 1
        # The server goes on: the same controller's next Control is stepped and answered.
        controller.send(encode(ControlMessage()))
        after = decode(controller.recv())
        assert isinstance(after, SensorMessage) and after.simulated_time > 0
    finally:
        controller.close()
        stop.set()
        loop.join(timeout=10)
        responder.close()
    assert not loop.is_alive()
