"""A lone controller's Controls asking for camera images (the "images" extension), stepped by the C++ hot
path (`coupler._native.HotPath.step_checked`; one of many steps chunk by chunk, others served between
two chunks) and answered with the images rendered in Python: the readings and images those of stepping the same
MJCF in MuJoCo directly and rendering it. Paced, their answers wait for their time in the hot path, which serves
others meanwhile (through the shared channel, one that would wait long is handed back empty, to come through the
socket); images that fail to render, or steps that fail, are answered with the failure; with several controllers,
refused."""

from __future__ import annotations

import time
from concurrent import futures

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler import _native  # noqa: E402
from coupler.mujoco.camera_serving import serve_cameras  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.scenes import load_scene  # noqa: E402
from coupler.serve.long_control import LONG_CONTROL_STEPS  # noqa: E402
from coupler.serve.run_clock import RunClock  # noqa: E402
from coupler.transport.client import Client  # noqa: E402
from coupler.wire.codec import decode, encode  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ImageRequest,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from served_loop import Served  # noqa: E402
from failing_stepper import failing_parts  # noqa: E402
from camera_rail import rail_scene, rgb_and_depth  # noqa: E402

WIDTH, HEIGHT = 32, 24
# A red cart pushed along a rail across the camera's view: its motor's force moves it in the picture.
SCENE = rail_scene(WIDTH, HEIGHT, slide='damping="0.5"', motor='ctrlrange="-5 5"')
FORCES = [4.0, -2.5, 9.0, 0.0, -1.5]  # 9 N is clamped to the motor's 5
STEPS = [3, 1, 5, 0, 150]  # 0: one step; 150: more than LONG_CONTROL_STEPS, taken in chunks
LONGEST = 100_000  # steps of a Control read between its chunks, then stopped


def _camera_scene() -> MujocoSimulation:
    """SCENE with its camera served."""
    simulation = MujocoSimulation.from_xml_string(SCENE)
    if serve_cameras(simulation) is None:
        pytest.fail(f"the scene's camera is not served: {simulation.images_unavailable}")
    return simulation


def _rendered(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """The rgb and depth `mujoco.Renderer` renders of `data` from the camera."""
    with mujoco.Renderer(model, HEIGHT, WIDTH) as renderer:
        rgb, depth = rgb_and_depth(renderer, data)
    return rgb, depth


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """The answers to FORCES' Controls asking for images, the hot path's count of Controls it stepped, and the
    cart's object name."""
    simulation = MujocoSimulation.from_xml_string(SCENE)
    if serve_cameras(simulation) is None or simulation.images is None:
        pytest.fail(f"the scene's camera is not served: {simulation.images_unavailable}")
    address = f"ipc://{tmp_path_factory.mktemp('images')}/hot.sock"
    with Served(simulation, address) as hot, Client(hot.responder.endpoint, timeout=30.0) as client:
        handshake = client.request(HandshakeInitMessage())
        cart = next(name for name, described in handshake.objects.items() if described.controls)
        answers = [client.request(ControlMessage(objects={cart: ObjectControl(values=[force])}, steps=steps,
                                                 images=[ImageRequest("eye", ["rgb", "depth"])]))
                   for force, steps in zip(FORCES, STEPS)]
        refused = client.request(ControlMessage(objects={cart: ObjectControl(values=[1.0])},
                                                images=[ImageRequest("nose", ["rgb"])]))
        assert hot.loop.hot_path is not None
        yield answers, refused, hot.loop.hot_path.controls, hot.sim.stats, hot.sim.simulation.data.time


def test_a_lone_controllers_controls_asking_for_images_are_stepped_in_cpp(served):
    answers, _, stepped_in_cpp, stats, _ = served
    assert all(isinstance(answer, SensorMessage) for answer in answers)
    assert max(STEPS) > LONG_CONTROL_STEPS
    assert stepped_in_cpp == len(FORCES)
    assert stats.controls == len(FORCES)
    assert stats.steps == sum(max(steps, 1) for steps in STEPS)


def test_their_readings_and_images_are_those_of_stepping_the_scene_in_mujoco_and_rendering_it(served):
    answers, *_ = served
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    for force, steps, answer in zip(FORCES, STEPS, answers):
        data.ctrl[0] = force
        mujoco.mj_step(model, data, nstep=max(steps, 1))
        (reading,) = answer.objects.values()
        assert answer.simulated_time == data.time
        assert reading.angles == data.qpos.tolist() and reading.angular_velocities == data.qvel.tolist()
        rgb, depth = _rendered(model, data)
        images = {image.kind: image for image in answer.images}
        assert sorted(images) == ["depth", "rgb"]
        assert images["rgb"].time == data.time
        np.testing.assert_array_equal(np.frombuffer(images["rgb"].data, np.uint8).reshape(HEIGHT, WIDTH, 3), rgb)
        np.testing.assert_allclose(np.frombuffer(images["depth"].data, np.float32).reshape(HEIGHT, WIDTH), depth,
                                   rtol=1e-5)


def test_a_control_asking_for_a_camera_the_scene_lacks_is_refused_and_nothing_steps(served):
    _, refused, _, _, simulated = served
    assert isinstance(refused, ErrorMessage) and "no camera named 'nose'" in refused.text
    assert simulated == pytest.approx(sum(max(steps, 1) for steps in STEPS) * 0.002)


def test_a_control_of_many_steps_asking_for_images_answers_reads_between_its_chunks_and_a_stop_ends_it(tmp_path):
    # The arm: seconds of stepping, where a stop is seen within a tenth of one (the rail would be done first).
    simulation = load_scene("arm")
    if serve_cameras(simulation) is None:
        pytest.fail(f"the arm's camera is not served: {simulation.images_unavailable}")
    with Served(simulation, f"ipc://{tmp_path}/long.sock") as hot, \
            Client(hot.responder.endpoint, timeout=30.0) as driver, \
            Client(hot.responder.endpoint, timeout=5.0) as reader:
        driver.request(HandshakeInitMessage())
        driver.send(ControlMessage(objects={"arm": ObjectControl(values=[0.1] * 7)}, steps=LONGEST,
                                   images=[ImageRequest("overview", ["depth"])]))
        read = reader.request(SensorRequestMessage())
        while read.simulated_time == 0 and not driver.wait(0):  # read before the Control was taken: again
            time.sleep(0.005)
            read = reader.request(SensorRequestMessage())
        hot.stop.set()
        ended = driver.receive()
        stepped_in_cpp = hot.loop.hot_path.controls
    # The read saw the state of the last chunk taken: part of the way there.
    assert 0 < read.simulated_time < LONGEST * 0.002
    assert isinstance(ended, ErrorMessage) and ended.code == ErrorCode.SESSION_ENDED
    assert ended.text.startswith("server stopped after ") and f" of the {LONGEST} steps" in ended.text
    assert stepped_in_cpp == 1


# 100 steps of 2 ms are taken at once, their images rendered aside; 250 in chunks, their images rendered after them.
@pytest.mark.parametrize("steps", [100, 250])
def test_paced_the_answer_to_a_control_asking_for_images_waits_in_cpp_which_answers_a_reader_meanwhile(tmp_path,
                                                                                                      steps):
    simulation = _camera_scene()
    # At a quarter of real time, their answer waits four times their simulated time: far longer than their depth
    # image takes to render under load.
    with Served(simulation, f"ipc://{tmp_path}/held.sock", clock=RunClock(0.25)) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as driver, \
            Client(hot.responder.endpoint, timeout=5.0) as reader:
        driver.request(HandshakeInitMessage())
        sent = time.monotonic()
        driver.send(ControlMessage(objects={"cart": ObjectControl(values=[1.0])}, steps=steps,
                                   images=[ImageRequest("eye", ["depth"])]))
        # Its images render (reads are answered in Python meanwhile); then the hot path holds its answer.
        while not hot.loop.hot_path.long_in_progress and time.monotonic() - sent < 5.0:
            time.sleep(0.001)
        time.sleep(0.02)  # the loop is back in the hot path
        read = reader.request(SensorRequestMessage())
        waiting = not driver.wait(0)
        answer = driver.receive()
        answered_after = time.monotonic() - sent
    reads_in_cpp = hot.loop.hot_path.reads  # counted once its run returns
    assert isinstance(answer, SensorMessage) and [image.kind for image in answer.images] == ["depth"]
    assert answered_after >= steps * 0.002 / 0.25 * 0.98
    assert waiting and read.simulated_time == answer.simulated_time  # read while the answer waited
    assert reads_in_cpp >= 1  # the reader was answered by the hot path holding the answer


def test_paced_the_last_control_before_stop_after_asking_for_images_is_answered_when_due_then_the_loop_ends(tmp_path):
    simulation = _camera_scene()
    steps = 100  # 0.2 s of the scene's 2 ms steps: the run's end
    with Served(simulation, f"ipc://{tmp_path}/last.sock", clock=RunClock(1.0), stop_after=steps * 0.002) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as driver:
        driver.request(HandshakeInitMessage())
        sent = time.monotonic()
        answer = driver.request(ControlMessage(objects={"cart": ObjectControl(values=[1.0])}, steps=steps,
                                               images=[ImageRequest("eye", ["rgb"])]))
        answered_after = time.monotonic() - sent
        hot.thread.join(timeout=5.0)
        ended = not hot.thread.is_alive()
    assert isinstance(answer, SensorMessage) and [image.kind for image in answer.images] == ["rgb"]
    assert answered_after >= steps * 0.002 * 0.98
    assert ended


def test_paced_a_control_asking_for_images_whose_answer_waits_long_is_handed_back_empty_through_the_channel(
        tmp_path):
    simulation = _camera_scene()
    eye = [ImageRequest("eye", ["rgb"])]
    with Served(simulation, f"ipc://{tmp_path}/channel.sock", clock=RunClock(1.0)) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as driver:
        handshake = driver.request(HandshakeInitMessage(shared_channel=True))
        assert handshake.shared_channel
        first = driver.request(ControlMessage(objects={"cart": ObjectControl(values=[1.0])}))
        through = _native.SharedChannelClient(handshake.shared_channel)
        # 100 steps of 2 ms: its answer would wait 0.2 s, where the channel holds nothing.
        control = ControlMessage(objects={"cart": ObjectControl(values=[1.0])}, steps=100, images=eye)
        empty = through.exchange(encode(control), 5.0)
        short = decode(through.exchange(encode(ControlMessage(objects={"cart": ObjectControl(values=[1.0])},
                                                              images=eye)), 5.0))
        again = driver.request(control)  # sent again through the socket, held there
    assert empty == b""  # nothing applied
    assert isinstance(short, SensorMessage) and short.simulated_time == pytest.approx(first.simulated_time + 0.002)
    assert [image.kind for image in short.images] == ["rgb"]  # one step's wait: answered through the channel
    assert isinstance(again, SensorMessage) and again.simulated_time == pytest.approx(short.simulated_time + 0.2)
    assert [image.kind for image in again.images] == ["rgb"]


def _images_then_plain(hot: Served, eye: list[ImageRequest]) -> tuple[object, object, object]:
    """The answers to a Control asking for `eye`'s images, a read asking for them, and a plain Control, in turn."""
    with Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        control = client.request(ControlMessage(objects={"cart": ObjectControl(values=[1.0])}, images=eye))
        read = client.request(SensorRequestMessage(images=eye))
        plain = client.request(ControlMessage(objects={"cart": ObjectControl(values=[1.0])}))
    return control, read, plain


@pytest.mark.parametrize("trace", [False, True], ids=["rendered-aside", "traced"])
def test_images_that_fail_to_render_are_answered_with_the_failure_and_serving_goes_on(tmp_path, trace):
    simulation = _camera_scene()

    def no_context(wanted: object) -> futures.Future:
        failed: futures.Future = futures.Future()
        failed.set_exception(RuntimeError("no OpenGL context could be made"))
        return failed

    simulation.images.submit = no_context
    eye = [ImageRequest("eye", ["rgb"])]
    with Served(simulation, f"ipc://{tmp_path}/unrendered.sock", trace=trace) as hot:
        control, read, plain = _images_then_plain(hot, eye)
    assert isinstance(control, ErrorMessage) and control.code == ErrorCode.INTERNAL_ERROR
    assert control.text == ("the Control was applied, but its images could not be rendered: no OpenGL context could "
                            "be made")
    assert isinstance(read, ErrorMessage) and read.code == ErrorCode.INTERNAL_ERROR
    assert read.text == "images could not be rendered: no OpenGL context could be made"
    assert isinstance(plain, SensorMessage) and plain.simulated_time == pytest.approx(2 * 0.002)  # both were stepped


def test_with_several_controllers_a_control_asking_for_images_is_refused_in_one_line_and_a_read_gets_them(tmp_path):
    simulation = _camera_scene()
    eye = [ImageRequest("eye", ["rgb"])]
    with Served(simulation, f"ipc://{tmp_path}/shared.sock", controllers=2) as hot:
        refused, read, plain = _images_then_plain(hot, eye)
    assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.CONTROL_MISMATCH
    assert refused.text == ("images are served with the Controls of a lone controller; this server steps several "
                            "controllers' Controls together (SensorRequests can ask for images)")
    assert isinstance(read, SensorMessage) and [image.kind for image in read.images] == ["rgb"]
    assert isinstance(plain, SensorMessage) and plain.simulated_time == pytest.approx(0.002)  # the refused one: none


def test_a_control_of_many_steps_asking_for_images_whose_stepping_fails_is_answered_with_the_failure(tmp_path):
    simulation = _camera_scene()
    parts = simulation.hot_path_parts()
    simulation.hot_path_parts = lambda: failing_parts(parts, "the physics diverged", after=3)  # a few chunks in
    with Served(simulation, f"ipc://{tmp_path}/diverging.sock") as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        failed = client.request(ControlMessage(objects={"cart": ObjectControl(values=[1.0])}, steps=LONGEST,
                                               images=[ImageRequest("eye", ["rgb"])]))
        read = client.request(SensorRequestMessage())
        serving = hot.thread.is_alive()
    assert isinstance(failed, ErrorMessage) and failed.code == ErrorCode.INTERNAL_ERROR
    assert failed.text.startswith("internal error: RuntimeError: the physics diverged")
    assert isinstance(read, SensorMessage) and 0 < read.simulated_time < LONGEST * 0.002  # the chunks taken
    assert serving
