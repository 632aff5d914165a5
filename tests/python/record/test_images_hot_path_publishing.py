"""A published server (--publish, --record) whose controller asks for camera images with its Controls: stepped
by the C++ hot path, each is published in turn with its answer, images and all."""

from __future__ import annotations

import threading

import pytest
import zmq

mujoco = pytest.importorskip("mujoco")

from coupler.mujoco.camera_serving import serve_cameras  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.record.publisher import FramePublisher  # noqa: E402
from coupler.record.scene_record import scene_attachments, scene_metadata  # noqa: E402
from coupler.serve.frame_observer import observed  # noqa: E402
from coupler.serve.lockstep_loop import LockstepLoop  # noqa: E402
from coupler.serve.native_responder import NativeResponder  # noqa: E402
from coupler.serve.run_clock import RunClock  # noqa: E402
from coupler.serve.simulation_server import SimulationServer  # noqa: E402
from coupler.wire.codec import encode  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ControlMessage,
    HandshakeInitMessage,
    ImageRequest,
    ObjectControl,
    SensorRequestMessage,
)
from frame_subscriber import assert_streams_exchanges, compared, follow, until_end  # noqa: E402
from camera_rail import rail_scene  # noqa: E402

# A cart pushed along a rail across the camera's view.
SCENE = rail_scene(16, 12, motor='ctrlrange="-5 5"')
EYE = [ImageRequest("eye", ["rgb", "depth"])]
# Controls asking for images (every other step's, some clamped, one of 150 steps taken in chunks, one of 50 whose
# answer waits paced), one asking for none, a read asking for them.
FRAMES = [encode(message) for message in [
    HandshakeInitMessage(),
    *(ControlMessage({"cart": ObjectControl([force])}, steps, images=EYE)
      for force, steps in [(2.0, 1), (-7.0, 3), (1.0, 0), (4.0, 2), (-0.5, 150), (0.3, 50)]),
    ControlMessage({"cart": ObjectControl([0.5])}, 2),
    ControlMessage({"cart": ObjectControl([-1.0])}, 1, images=[ImageRequest("eye", ["rgb"], every=2)]),
    SensorRequestMessage(images=EYE),
]]


def stream(address: str, publish_on: str, clock: RunClock | None = None) -> tuple[list, list, int]:
    """Every frame message published while a controller sends FRAMES (paced by `clock` when given), all header
    fields but the wall clock; every request and its answer; and the Controls the hot path stepped."""
    simulation = MujocoSimulation.from_xml_string(SCENE)
    if serve_cameras(simulation) is None or simulation.images is None:
        pytest.fail(f"the scene's camera is not served: {simulation.images_unavailable}")
    publisher = FramePublisher(scene_metadata(simulation, "rail"), scene_attachments(simulation))
    responder = NativeResponder(address, SimulationServer(simulation))
    loop = LockstepLoop(observed(responder, publisher), clock)
    stop = threading.Event()
    thread = threading.Thread(target=loop.run, args=(stop, 0.05))
    subscriber, received = follow(publisher.bind(publish_on))
    exchanged = []
    try:
        assert publisher.wait_for_subscribers(1, 10.0)
        thread.start()
        with zmq.Context.instance().socket(zmq.REQ) as controller:
            controller.linger = 0
            controller.rcvtimeo = 30_000
            controller.connect(responder.endpoint)
            for frame in FRAMES:
                controller.send(frame)
                exchanged.append((frame, controller.recv()))
        stop.set()
        thread.join(timeout=10)
        publisher.send_end()
        until_end(subscriber, received)
    finally:
        stop.set()
        thread.join(timeout=10)
        responder.close()
        publisher.close()
        subscriber.close()
    return compared(received), exchanged, loop.hot_path.controls


@pytest.mark.parametrize("clock", [None, RunClock(0.25)], ids=["unpaced", "paced"])
def test_controls_asking_for_images_stepped_in_cpp_are_published_in_turn_with_their_answers(make_address, clock):
    # Paced at a quarter of real time, the answers of the Controls of 150 and 50 steps wait for their time in C++,
    # which publishes them.
    published, exchanged, stepped_in_cpp = stream(make_address("ipc"), make_address("ipc"), clock)
    assert stepped_in_cpp == 8  # the first, which starts the run, too
    assert_streams_exchanges(published, exchanged)
    assert any(b"rgb" in answer for _, answer in exchanged)  # images came with some answers
