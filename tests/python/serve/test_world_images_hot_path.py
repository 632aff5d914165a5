"""A lone controller's Controls for every world asking for camera images, checked in Python, applied, stepped and
read by the native world hot path (`coupler.serve.world_hot_path.WorldHotPath.step_control`; one of many steps
chunk by chunk, the loop serving others between two chunks), and its ordinary
Controls driving world 0 alone by the single-world hot path's C++ object (`coupler._native.HotPath.step_checked`),
answered with the images rendered in Python: every world's readings and images those of stepping the same MJCF in
MuJoCo directly and rendering it."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

# The renderer compared with needs its OpenGL chosen before MuJoCo is imported: the server's own choice, EGL.
os.environ.setdefault("MUJOCO_GL", "egl")
mujoco = pytest.importorskip("mujoco")

from coupler.mujoco.camera_serving import serve_cameras  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.serve.long_control import LONG_CONTROL_STEPS  # noqa: E402
from coupler.serve.run_clock import RunClock  # noqa: E402
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
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images  # noqa: E402
from served_loop import ServedBatch, ask, req_socket  # noqa: E402
from camera_rail import rail_scene, rgb_and_depth  # noqa: E402

WORLDS = 3
WIDTH, HEIGHT = 32, 24
# A red cart pushed along a rail across the camera's view: its motor's force moves it in the picture.
SCENE = rail_scene(WIDTH, HEIGHT, slide='damping="0.5"', motor='ctrlrange="-5 5"')
# Per Control, each world's force (9 N is clamped to the motor's 5), its steps (0: one) and the worlds rendered.
FORCES = [[4.0, -2.5, 1.0], [-3.0, 9.0, 0.5], [0.0, 2.0, -4.0]]
STEPS = [3, 0, 5]
IMAGE_WORLDS: list[list[int]] = [[], [0, 2], [1]]  # none named: every world
# Then world 0 alone, by ordinary Controls: its force and steps (150: taken in chunks), and whether they ask for its
# image.
ORDINARY = [(2.0, 2, True), (-1.0, 0, False), (0.5, 1, True), (-0.5, 150, True)]
LAST = [1.5, -1.5, 3.0]  # then every world again, for 2 steps
LONG = [-2.0, 0.5, 1.0]  # then every world for LONG_STEPS steps, more than LONG_CONTROL_STEPS: taken in chunks
LONG_STEPS = 150
LONG_WORLDS = [2]
LONGEST = 100_000  # steps of a Control for every world read between its chunks, then stopped


def served_rail(address: str, clock: RunClock | None = None) -> ServedBatch:
    """The rail scene's batch of WORLDS worlds with its camera, served by a lockstep loop in a thread (paced by
    `clock` when given)."""
    first = MujocoSimulation.from_xml_string(SCENE)
    if serve_cameras(first) is None or first.images is None:
        pytest.fail(f"the scene's camera is not served: {first.images_unavailable}")
    return ServedBatch(first, address, WORLDS, clock=clock)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """The answers to the Controls for every world asking for images (read), a refused one's answer, the world hot
    path's count of Controls it stepped, the server's counts, world 0's time before the ordinary Controls, their
    answers and the single-world hot path's count of those it stepped."""
    address = f"ipc://{tmp_path_factory.mktemp('worlds')}/images.sock"
    with served_rail(address) as hot, req_socket(address) as socket:
        ask(socket, encode(HandshakeInitMessage()))
        answers = [read_world_answer_with_images(ask(socket, encode_world_control(
            WORLDS, np.array(forces)[:, None], steps, images=[("eye", ["rgb", "depth"])], image_worlds=chosen)))
            for forces, steps, chosen in zip(FORCES, STEPS, IMAGE_WORLDS)]
        refused = decode(ask(socket, encode_world_control(WORLDS, np.ones((WORLDS, 1)), images=[("nose", ["rgb"])])))
        ordinary = [decode(ask(socket, encode(ControlMessage(objects={"cart": ObjectControl(values=[force])},
                                                             steps=steps,
                                                             images=[ImageRequest("eye", ["rgb"])] if image else []))))
                    for force, steps, image in ORDINARY]
        time = hot.worlds.first.data.time - sum(max(steps, 1) for _, steps, _ in ORDINARY) * 0.002
        last = read_world_answer_with_images(ask(socket, encode_world_control(
            WORLDS, np.array(LAST)[:, None], 2, images=[("eye", ["rgb"])], image_worlds=[0])))
        long = read_world_answer_with_images(ask(socket, encode_world_control(
            WORLDS, np.array(LONG)[:, None], LONG_STEPS, images=[("eye", ["rgb", "depth"])], image_worlds=LONG_WORLDS)))
        assert hot.loop.hot_path is not None and hot.loop.hot_path.world_0 is not None
        yield (answers, refused, hot.loop.hot_path.controls, hot.sim.stats, time, ordinary,
               hot.loop.hot_path.world_0.controls, last, long)


def test_controls_for_every_world_asking_for_images_are_stepped_by_the_native_world_hot_path(served):
    _, _, stepped_in_cpp, stats, *_ = served
    assert LONG_STEPS > LONG_CONTROL_STEPS
    assert stepped_in_cpp == len(FORCES) + 2
    assert stats.controls == len(FORCES) + len(ORDINARY) + 2
    assert stats.steps == sum(max(steps, 1) for steps in STEPS + [steps for _, steps, _ in ORDINARY]) + 2 + LONG_STEPS


def test_every_worlds_readings_and_images_are_those_of_stepping_it_in_mujoco_and_rendering_it(served):
    answers, *_ = served
    model = mujoco.MjModel.from_xml_string(SCENE)
    direct = [mujoco.MjData(model) for _ in range(WORLDS)]
    with mujoco.Renderer(model, HEIGHT, WIDTH) as renderer:
        for forces, steps, chosen, (_, times, data, images, shown) in zip(FORCES, STEPS, IMAGE_WORLDS, answers):
            for world, force in zip(direct, forces):
                world.ctrl[0] = force
                mujoco.mj_step(model, world, nstep=max(steps, 1))
            assert times.tolist() == [world.time for world in direct]
            np.testing.assert_array_equal(data.reshape(WORLDS, -1), [np.concatenate([w.qpos, w.qvel]) for w in direct])
            assert shown.tolist() == (chosen or list(range(WORLDS)))
            pictures = {image.kind: image.pixels for image in images}
            assert sorted(pictures) == ["depth", "rgb"]
            for k, world in enumerate(shown.tolist()):
                rgb, depth = rgb_and_depth(renderer, direct[world])
                np.testing.assert_array_equal(pictures["rgb"][k], rgb)
                np.testing.assert_allclose(pictures["depth"][k], depth, rtol=1e-5)


def test_a_control_for_every_world_asking_for_a_camera_the_scene_lacks_is_refused_and_no_world_steps(served):
    _, refused, _, _, time, *_ = served
    assert isinstance(refused, ErrorMessage) and "no camera named 'nose'" in refused.text
    assert time == pytest.approx(sum(max(steps, 1) for steps in STEPS) * 0.002)


def test_ordinary_controls_driving_world_0_are_stepped_by_the_single_world_hot_path_as_mujoco_steps_it(served):
    *_, ordinary, stepped_in_cpp, _, _ = served
    assert stepped_in_cpp == len(ORDINARY)
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    for forces, steps in zip(FORCES, STEPS):
        data.ctrl[0] = forces[0]
        mujoco.mj_step(model, data, nstep=max(steps, 1))
    with mujoco.Renderer(model, HEIGHT, WIDTH) as renderer:
        for (force, steps, image), answer in zip(ORDINARY, ordinary):
            data.ctrl[0] = force
            mujoco.mj_step(model, data, nstep=max(steps, 1))
            assert isinstance(answer, SensorMessage) and answer.simulated_time == data.time
            (reading,) = answer.objects.values()
            assert reading.angles == data.qpos.tolist() and reading.angular_velocities == data.qvel.tolist()
            assert len(answer.images) == image
            if image:
                renderer.update_scene(data, "eye")
                np.testing.assert_array_equal(np.frombuffer(answer.images[0].data, np.uint8).reshape(HEIGHT, WIDTH, 3),
                                              renderer.render())


def _stepped_directly(then: list[tuple[list[float], int]]) -> list[mujoco.MjData]:
    """Every world stepped in MuJoCo directly as the served Controls step it: FORCES for STEPS, world 0's ORDINARY
    Controls, then the Controls for every world `then` lists (forces, steps)."""
    model = mujoco.MjModel.from_xml_string(SCENE)
    direct = [mujoco.MjData(model) for _ in range(WORLDS)]
    for forces, steps in zip(FORCES, STEPS):
        for world, force in zip(direct, forces):
            world.ctrl[0] = force
            mujoco.mj_step(model, world, nstep=max(steps, 1))
    for force, steps, _ in ORDINARY:
        direct[0].ctrl[0] = force
        mujoco.mj_step(model, direct[0], nstep=max(steps, 1))
    for forces, steps in then:
        for world, force in zip(direct, forces):
            world.ctrl[0] = force
            mujoco.mj_step(model, world, nstep=steps)
    return direct


def test_a_control_for_every_world_after_world_0s_ordinary_ones_steps_each_world_on_as_mujoco_does(served):
    *_, (_, times, data, _, _), _ = served
    direct = _stepped_directly([(LAST, 2)])
    assert times.tolist() == [world.time for world in direct]
    np.testing.assert_array_equal(data.reshape(WORLDS, -1), [np.concatenate([w.qpos, w.qvel]) for w in direct])


def test_a_control_for_every_world_of_many_steps_asking_for_images_ends_where_mujoco_ends_rendered_as_it_renders(
        served):
    *_, (_, times, data, images, shown) = served
    direct = _stepped_directly([(LAST, 2), (LONG, LONG_STEPS)])
    assert times.tolist() == [world.time for world in direct]
    np.testing.assert_array_equal(data.reshape(WORLDS, -1), [np.concatenate([w.qpos, w.qvel]) for w in direct])
    assert shown.tolist() == LONG_WORLDS
    pictures = {image.kind: image.pixels for image in images}
    with mujoco.Renderer(direct[0].model, HEIGHT, WIDTH) as renderer:
        rgb, depth = rgb_and_depth(renderer, direct[LONG_WORLDS[0]])
    np.testing.assert_array_equal(pictures["rgb"][0], rgb)
    np.testing.assert_allclose(pictures["depth"][0], depth, rtol=1e-5)


def test_a_control_for_every_world_of_many_steps_asking_for_images_answers_reads_between_chunks_and_a_stop_ends_it(
        tmp_path):
    address = f"ipc://{tmp_path}/long.sock"
    with served_rail(address) as hot, req_socket(address) as driver, req_socket(address) as reader:
        ask(driver, encode(HandshakeInitMessage()))
        driver.send(encode_world_control(WORLDS, np.ones((WORLDS, 1)), LONGEST, images=[("eye", ["rgb"])]))
        read = decode(ask(reader, encode(SensorRequestMessage())))
        while read.simulated_time == 0 and not driver.poll(0):  # read before the Control was taken: again
            time.sleep(0.005)
            read = decode(ask(reader, encode(SensorRequestMessage())))
        hot.stop.set()
        ended = decode(driver.recv())
        stepped_in_cpp = hot.loop.hot_path.controls
    # The read saw world 0's state of the last chunk taken: part of the way there.
    assert isinstance(read, SensorMessage) and 0 < read.simulated_time < LONGEST * 0.002
    assert isinstance(ended, ErrorMessage) and ended.code == ErrorCode.SESSION_ENDED
    assert ended.text.startswith("server stopped after ") and f" of the {LONGEST} steps" in ended.text
    assert stepped_in_cpp == 1


def test_paced_the_answer_to_a_control_for_every_world_asking_for_images_waits_in_cpp_a_reader_answered_meanwhile(
        tmp_path):
    address = f"ipc://{tmp_path}/paced.sock"
    # 0.2 s of the scene's 2 ms steps, taken at once, at a quarter of real time: their answer waits 0.8 s, far longer
    # than its depth images take to render under load.
    steps = 100
    with served_rail(address, RunClock(0.25)) as hot, req_socket(address) as driver, req_socket(address) as reader:
        ask(driver, encode(HandshakeInitMessage()))
        sent = time.monotonic()
        driver.send(encode_world_control(WORLDS, np.ones((WORLDS, 1)), steps, images=[("eye", ["depth"])]))
        # Its images render aside; then the world hot path holds its answer until its time.
        while not hot.loop.hot_path.long_in_progress and time.monotonic() - sent < 5.0:
            time.sleep(0.001)
        read = decode(ask(reader, encode(SensorRequestMessage())))
        waiting = driver.poll(0) == 0
        _, times, _, images, image_worlds = read_world_answer_with_images(driver.recv())
        answered_after = time.monotonic() - sent
    assert waiting and isinstance(read, SensorMessage)  # read while the answer waited
    assert answered_after >= steps * 0.002 / 0.25 * 0.98
    assert times[0] == pytest.approx(steps * 0.002) == read.simulated_time
    assert [image.kind for image in images] == ["depth"] and list(image_worlds) == list(range(WORLDS))
