"""Images (the "images" extension) on the serving side: they render aside (while a controller's answer
waits for its images, the lockstep loop serves everyone else, then sends that answer with them; paced, an answer
held for its time goes out when due whatever still renders), an answer they would make too large to arrive is
refused, and images that never finish are given up on in one line."""

from __future__ import annotations

import time
from concurrent.futures import Future

import numpy as np
import pytest
import zmq

from coupler.scenes import load_scene
from coupler.serve.image_answer import ImageAnswer
from coupler.serve.run_clock import RunClock
from coupler.wire.codec import decode, encode
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import (CameraDescription, ControlMessage, ErrorCode, ErrorMessage, ImageRequest,
                                   SensorMessage, SensorRequestMessage)
from served_loop import Served

TIME_STEP = 0.1  # seconds of the static scene's step


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


def _served(cameras: HeldCameras, address: str, clock: RunClock | None = None) -> Served:
    """The static scene (steps of 0.1 s), whose images `cameras` render, served by a lockstep loop in a thread,
    paced by `clock` when given."""
    simulation = load_scene("static", TIME_STEP)
    simulation.images = cameras
    return Served(simulation, address, clock=clock)


def _until_submitted(cameras: HeldCameras) -> None:
    deadline = time.monotonic() + 5.0
    while not cameras.jobs and time.monotonic() < deadline:
        time.sleep(0.005)
    assert len(cameras.jobs) == 1


def test_a_reader_is_answered_while_the_controllers_images_render(tmp_path):
    cameras = HeldCameras()
    address = f"ipc://{tmp_path}/images.sock"
    context = zmq.Context.instance()
    with _served(cameras, address), _socket(context, address) as controller, _socket(context, address) as reader:
        controller.send(encode(ControlMessage(images=[ImageRequest("eye", ["depth"])])))
        _until_submitted(cameras)
        reader.send(encode(SensorRequestMessage()))
        read = decode(reader.recv())
        assert isinstance(read, SensorMessage) and not read.images
        assert controller.poll(50) == 0  # its images are not done: its answer waits
        depth = np.array([1.5, 2.5], np.float32)
        cameras.jobs[0].set_result([("eye", "depth", 2, 1, read.simulated_time, depth)])
        answer = decode(controller.recv())
        assert isinstance(answer, SensorMessage) and answer.simulated_time > 0
        assert [(i.camera, i.kind, i.data) for i in answer.images] == [("eye", "depth", depth.tobytes())]


@pytest.mark.parametrize("with_images", [True, False], ids=["rendered-here", "plain"])
def test_paced_a_controllers_answer_goes_out_when_due_while_a_readers_images_still_render(tmp_path, with_images):
    cameras = HeldCameras()
    address = f"ipc://{tmp_path}/paced.sock"
    context = zmq.Context.instance()
    depth = np.array([1.5, 2.5], np.float32)
    rendered = [("eye", "depth", 2, 1, 3 * TIME_STEP, depth)]
    eye = [ImageRequest("eye", ["depth"])]
    with _served(cameras, address, RunClock(1.0)), _socket(context, address) as controller, \
            _socket(context, address) as reader:
        sent = time.monotonic()
        controller.send(encode(ControlMessage(steps=3, images=eye if with_images else [])))
        if with_images:
            _until_submitted(cameras)
            cameras.jobs[0].set_result(rendered)
        else:
            time.sleep(0.05)  # the hot path has taken it by now
        # The controller's answer waits for its time, 0.3 s after it was sent, held by the hot path.
        reader.send(encode(SensorRequestMessage(images=eye)))
        answer = decode(controller.recv())
        answered_after = time.monotonic() - sent
        readers_job = cameras.jobs[-1]
        assert len(cameras.jobs) == 1 + with_images and not readers_job.done()  # the reader's: still rendering
        readers_job.set_result(rendered)
        read = decode(reader.recv())
    assert isinstance(answer, SensorMessage) and answer.simulated_time == pytest.approx(3 * TIME_STEP)
    assert [(i.camera, i.kind, i.data) for i in answer.images] == ([("eye", "depth", depth.tobytes())] * with_images)
    assert answered_after >= 3 * TIME_STEP * 0.98
    assert isinstance(read, SensorMessage) and len(read.images) == 1


def test_images_that_would_make_an_answer_over_the_frame_limit_are_refused_naming_it():
    answer = ImageAnswer(HeldCameras(), 0.002, max_frame_bytes=1000, state_bytes=700)
    answer.check([("eye", ("depth",), None)])  # 8 bytes of pixels: within the limit with the fields' share
    with pytest.raises(ProtocolError, match=r"over the 1000-byte frame limit \(coupler serve --max-frame-bytes"):
        ImageAnswer(HeldCameras(), 0.002, max_frame_bytes=1000, state_bytes=1000).check([("eye", ("depth",), None)])


@pytest.mark.parametrize("paced", [False, True], ids=["unpaced", "paced"])
def test_a_controller_asking_again_before_its_images_are_done_reads_its_answers_in_order(tmp_path, paced):
    cameras = HeldCameras()
    address = f"ipc://{tmp_path}/order.sock"
    steps = 3  # 0.3 s of steps: paced, the answer is not due before
    with _served(cameras, address, RunClock(1.0) if paced else None), \
            zmq.Context.instance().socket(zmq.DEALER) as impatient:
        # A client that timed out and asks again: it sends without waiting for the answer.
        impatient.linger = 0
        impatient.connect(address)
        sent = time.monotonic()
        impatient.send_multipart([b"", encode(ControlMessage(steps=steps, images=[ImageRequest("eye", ["depth"])]))])
        _until_submitted(cameras)
        impatient.send_multipart([b"", encode(SensorRequestMessage())])
        assert impatient.poll(100) == 0
        cameras.jobs[0].set_result([("eye", "depth", 2, 1, 0.0, np.array([1.5, 2.5], np.float32))])
        answers = []
        for _ in range(2):
            assert impatient.poll(5000)
            answers.append(decode(impatient.recv_multipart()[-1]))
            if not answers[1:]:
                answered_after = time.monotonic() - sent
        assert [len(answer.images) for answer in answers] == [1, 0]
        assert answers[0].simulated_time == answers[1].simulated_time == pytest.approx(steps * TIME_STEP)
        if paced:
            assert answered_after >= steps * TIME_STEP * 0.98  # never ahead of the wall clock


def test_images_that_never_finish_are_answered_in_one_line_once_rendering_has_taken_too_long(tmp_path, monkeypatch):
    monkeypatch.setattr("coupler.serve.native_responder.RENDER_TIMEOUT", 0.3)
    address = f"ipc://{tmp_path}/stalled.sock"
    # Its images are never done.
    with _served(HeldCameras(), address) as served, _socket(zmq.Context.instance(), address) as controller:
        controller.send(encode(ControlMessage(images=[ImageRequest("eye", ["depth"])])))
        stalled = decode(controller.recv())
        assert isinstance(stalled, ErrorMessage) and stalled.code == ErrorCode.INTERNAL_ERROR
        assert stalled.text == "the Control was applied, but its images could not be rendered: rendering took too long"
        assert served.sim.stats.errors_sent == 1
        # The server goes on: the same controller's next Control is stepped and answered.
        controller.send(encode(ControlMessage()))
        after = decode(controller.recv())
        assert isinstance(after, SensorMessage) and after.simulated_time > 0
