"""Cameras of a batched server (`coupler serve --worlds N`): one Control for every world asks for a camera's images
of every world, or of the worlds named; world k's picture shows world k's state."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

# The renderer compared with needs its OpenGL chosen before MuJoCo is imported: the server's own choice, EGL.
os.environ.setdefault("MUJOCO_GL", "egl")
mujoco = pytest.importorskip("mujoco")

import zmq  # noqa: E402

from coupler import RemoteError, Session  # noqa: E402
from coupler.cli.world_flags import batched  # noqa: E402
from coupler.controller.world_session import WorldSession  # noqa: E402
from coupler.scenes import load_scene  # noqa: E402
from coupler.serve.batched_worlds import BatchedResponder  # noqa: E402
from coupler.serve.lockstep_loop import LockstepLoop  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.serve.simulation_server import SimulationServer  # noqa: E402
from coupler.wire.codec import decode, encode  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402
from coupler.wire.messages import CameraDescription, SensorMessage, SensorRequestMessage  # noqa: E402
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images  # noqa: E402
from camera_rail import rail_scene, rgb_and_depth  # noqa: E402

WORLDS = 3
WIDTH, HEIGHT = 32, 24
# A red cart on a rail across the camera's view: its slide joint's position is where the red is in the picture.
SCENE = rail_scene(WIDTH, HEIGHT)
POSITIONS = np.array([[0.0], [0.3], [-0.3]])  # each world's cart


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rail") / "rail.xml"
    path.write_text(SCENE)
    return path


@pytest.fixture(scope="module")
def worlds(scene_path: Path) -> Iterator[WorldSession]:
    with ServeProcess(["--scene", str(scene_path), "--worlds", str(WORLDS)]) as server:
        with Session(server.endpoint, timeout=30.0) as session:
            yield WorldSession(session)


@pytest.fixture(scope="module")
def placed(worlds: WorldSession):
    """Every world's images after resetting each world's cart to its own position."""
    worlds.send(resets=range(WORLDS), qpos=POSITIONS, images={"eye": ("rgb", "depth", "segmentation")})
    worlds.receive()
    return worlds.images["eye"]


def _direct(scene_path: Path, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rgb and depth `mujoco.Renderer` renders of the scene with its cart at `qpos`."""
    model = mujoco.MjModel.from_xml_path(str(scene_path))
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    mujoco.mj_forward(model, data)
    with mujoco.Renderer(model, HEIGHT, WIDTH) as renderer:
        return rgb_and_depth(renderer, data)


def _red_columns(rgb: np.ndarray) -> float:
    red = (rgb[..., 0] > 150) & (rgb[..., 1] < 80)
    return float(np.nonzero(red)[1].mean())


def test_every_world_is_rendered_stacked_in_world_order(placed):
    assert placed.worlds.tolist() == list(range(WORLDS))
    assert placed.rgb.shape == (WORLDS, HEIGHT, WIDTH, 3) and placed.rgb.dtype == np.uint8
    assert placed.depth.shape == (WORLDS, HEIGHT, WIDTH) and placed.depth.dtype == np.float32
    assert placed.segmentation.shape == (WORLDS, HEIGHT, WIDTH) and placed.segmentation.dtype == np.int32


def test_world_k_shows_world_ks_cart_where_it_is(placed):
    columns = [_red_columns(placed.rgb[k]) for k in range(WORLDS)]
    assert columns[2] < columns[0] < columns[1]  # -0.3 m left of 0, 0.3 m right of it


def test_world_ks_images_equal_the_renderers_of_its_state(placed, scene_path):
    rgb, depth = _direct(scene_path, POSITIONS[1])
    np.testing.assert_array_equal(placed.rgb[1], rgb)
    np.testing.assert_allclose(placed.depth[1], depth, rtol=1e-5)


def test_only_the_worlds_named_are_rendered(worlds, placed):
    worlds.send(np.zeros((WORLDS, worlds.control_width)), images={"eye": "rgb"}, image_worlds=[1])
    worlds.receive()
    shown = worlds.images["eye"]
    assert shown.worlds.tolist() == [1]
    assert shown.rgb.shape == (1, HEIGHT, WIDTH, 3) and shown.depth is None
    assert _red_columns(shown.rgb[0]) == pytest.approx(_red_columns(placed.rgb[1]), abs=0.5)


def test_a_control_asking_for_no_images_is_answered_without_them(worlds):
    worlds.send(np.zeros((WORLDS, worlds.control_width)))
    worlds.receive()
    assert worlds.images == {}


@pytest.mark.parametrize(("images", "image_worlds", "named"), [
    ([("nose", ["rgb"])], (), "no camera named 'nose'"),
    ([("eye", ["rgb"])], (WORLDS,), f"no world {WORLDS} to render"),
    ([("eye", ["infrared"])], (), "renders no 'infrared' images"),
])
def test_a_bad_request_is_refused_naming_it_and_no_world_steps(worlds, images, image_worlds, named):
    worlds.send(resets=range(WORLDS))
    _, before = worlds.receive()
    client = worlds.session.client  # past the WorldSession, which refuses these before sending
    client.send_frame(encode_world_control(WORLDS, np.zeros((WORLDS, worlds.control_width)), images=images,
                                           image_worlds=image_worlds))
    with pytest.raises(RemoteError, match=named):
        read_world_answer_with_images(client.receive_frame())
    worlds.send()  # steps no world: reads them
    _, after = worlds.receive()
    np.testing.assert_array_equal(after, before)


def test_a_rate_is_refused_before_sending(worlds):
    from coupler import CameraRequest

    with pytest.raises(Error, match="every 2 steps"):
        worlds.send(images={"eye": CameraRequest(("rgb",), every=2)})


def test_a_camera_the_server_does_not_offer_is_refused_before_sending(worlds):
    with pytest.raises(Error, match="the server offers no camera named 'nose'; it offers eye"):
        worlds.send(images={"nose": "rgb"})
    worlds.send()  # nothing was sent: the session goes on
    worlds.receive()


def test_world_zeros_camera_answers_ordinary_requests_too(worlds):
    assert worlds.session.sensors(images={"eye": "rgb"}).images["eye"].rgb.shape == (HEIGHT, WIDTH, 3)


class HeldWorldCameras:
    """An image source whose worlds' images are done only when the test says."""

    cameras = {"eye": CameraDescription(name="eye", width=2, height=1, kinds=["depth"])}

    def __init__(self) -> None:
        self.jobs: list[Future] = []

    def submit_worlds(self, wanted, states):
        job: Future = Future()
        self.jobs.append(job)
        return job


def test_a_reader_is_answered_while_every_worlds_images_render(scene_path, tmp_path):
    first = load_scene(str(scene_path))
    first.images = HeldWorldCameras()
    cameras = first.images
    address = f"ipc://{tmp_path}/worlds.sock"
    responder = BatchedResponder(address, SimulationServer(batched(first, WORLDS, 1)))
    stop = threading.Event()
    loop = threading.Thread(target=LockstepLoop(responder).run, args=(stop, 0.05))
    loop.start()
    context = zmq.Context.instance()
    controller, reader = (context.socket(zmq.REQ) for _ in range(2))
    try:
        for socket in (controller, reader):
            socket.linger, socket.rcvtimeo = 0, 5000
            socket.connect(address)
        controller.send(encode_world_control(WORLDS, np.zeros((WORLDS, 1)), images=[("eye", ["depth"])]))
        deadline = time.monotonic() + 5.0
        while not cameras.jobs and time.monotonic() < deadline:
            time.sleep(0.005)
        assert len(cameras.jobs) == 1
        reader.send(encode(SensorRequestMessage()))
        assert isinstance(decode(reader.recv()), SensorMessage)
        assert controller.poll(50) == 0  # its images are not done: its answer waits
        depth = np.arange(WORLDS * 2, dtype=np.float32).reshape(WORLDS, 1, 2)
        cameras.jobs[0].set_result({"eye": {"depth": depth}})
        _, times, _, stacks, shown = read_world_answer_with_images(controller.recv())
        assert times.tolist() == pytest.approx([first.handshake().time_step] * WORLDS)
        assert shown.tolist() == list(range(WORLDS))
        np.testing.assert_array_equal(stacks[0].pixels, depth)
    finally:
        controller.close()
        reader.close()
        stop.set()
        loop.join(timeout=10)
        responder.close()
    assert not loop.is_alive()
