"""Cameras as sensors (the "images" extension): a small scene's camera served by `coupler serve`, its
announced intrinsics checked against where known points land in its images."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler import CameraRequest, ExtensionNotSupportedError, RemoteError, Session  # noqa: E402
from coupler.mujoco.camera_size import parse_camera_size  # noqa: E402
from coupler.mujoco.cameras import camera_descriptions  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.transport.client import Client  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    EXTENSION_IMAGES,
    ImageRequest,
    SensorMessage,
    SensorRequestMessage,
    ServerInfo,
)

WIDTH, HEIGHT = 96, 72  # --camera's size, not the MJCF's
# A hinge to have something to step; a red box the camera sees obliquely; a green ball at the top of the picture.
SCENE = """
<mujoco model="seen">
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="2 2 0.1" rgba="0.3 0.3 0.3 1"/>
    <body name="pendulum" pos="-0.6 0 0.5">
      <joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" rgba="0.2 0.2 0.8 1"/>
    </body>
    <body name="box" pos="0.08 0.05 0.1">
      <geom name="box" type="box" size="0.06 0.06 0.06" rgba="0.9 0.1 0.1 1"/>
    </body>
    <body name="ball" pos="0 0.3 0.05">
      <geom name="ball" type="sphere" size="0.05" rgba="0.1 0.9 0.1 1"/>
    </body>
    <camera name="eye" pos="0.05 -0.5 0.9" xyaxes="1 0 0 0 0.8 0.6" fovy="60" resolution="32 24"/>
    <camera name="lens" pos="0 -0.6 0.7" xyaxes="1 0 0 0 0.7 0.7" focal="0.012 0.011" sensorsize="0.02 0.016"
            principal="0.001 -0.0015" resolution="80 60"/>
  </worldbody>
  <actuator><motor name="hinge" joint="hinge"/></actuator>
</mujoco>
"""


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cameras") / "seen.xml"
    path.write_text(SCENE)
    return path


@pytest.fixture(scope="module")
def session(scene_path: Path) -> Iterator[Session]:
    with ServeProcess(["--scene", str(scene_path), "--camera", f"eye={WIDTH}x{HEIGHT}"]) as server:
        with Session(server.endpoint, timeout=30.0, reset=True) as session:
            yield session


@pytest.fixture(scope="module")
def world(scene_path: Path) -> tuple[mujoco.MjModel, mujoco.MjData]:
    model = mujoco.MjModel.from_xml_path(str(scene_path))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


@pytest.fixture(scope="module")
def pictures(session: Session):
    return session.sensors(images={"eye": ("rgb", "depth", "segmentation")}).images["eye"]


def _in_camera(world, point: np.ndarray, name: str = "eye") -> np.ndarray:
    model, data = world
    camera = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, name)
    rotation = data.cam_xmat[camera].reshape(3, 3)  # columns: the camera's axes in the world
    return rotation.T @ (point - data.cam_xpos[camera])


def _projected(session: Session, world, point: np.ndarray, name: str = "eye") -> tuple[float, float]:
    described = session.handshake.cameras[name]
    x, y, z = _in_camera(world, point, name)
    return described.cx + described.fx * x / -z, described.cy - described.fy * y / -z


def _centroid(mask: np.ndarray) -> tuple[float, float]:
    rows, columns = np.nonzero(mask)
    return float(columns.mean()), float(rows.mean())


def test_the_handshake_announces_the_camera_with_its_size_kinds_intrinsics_and_mounting(session, world):
    model, _ = world
    described = session.handshake.cameras["eye"]
    focal = (HEIGHT / 2) / math.tan(math.radians(60) / 2)
    assert session.handshake.supports(EXTENSION_IMAGES)
    assert (described.width, described.height) == (WIDTH, HEIGHT)
    assert described.kinds == ["rgb", "depth", "segmentation"]
    assert described.fx == pytest.approx(focal) and described.fy == pytest.approx(focal)
    assert (described.cx, described.cy) == ((WIDTH - 1) / 2, (HEIGHT - 1) / 2)
    assert described.near == pytest.approx(model.vis.map.znear * model.stat.extent, rel=1e-6)
    assert described.far == pytest.approx(model.vis.map.zfar * model.stat.extent, rel=1e-6)
    assert described.body == "world" and described.position == pytest.approx([0.05, -0.5, 0.9])
    assert (session.handshake.max_image_width, session.handshake.max_image_height) == (4096, 4096)


def test_images_come_as_arrays_of_the_announced_size_and_of_the_state_reported(session, pictures):
    assert pictures.rgb.shape == (HEIGHT, WIDTH, 3) and pictures.rgb.dtype == np.uint8
    assert pictures.depth.shape == (HEIGHT, WIDTH) and pictures.depth.dtype == np.float32
    assert pictures.segmentation.shape == (HEIGHT, WIDTH) and pictures.segmentation.dtype == np.int32
    assert pictures.time == session.sensors().time


def test_a_known_point_projects_onto_its_blob_and_the_depth_there_is_its_distance(session, world, pictures):
    model, data = world
    rgb = pictures.rgb.astype(int)
    # Red whether lit or in shade: every face seen counts, so the blob is the box's whole outline.
    red = (rgb[..., 0] > 40) & (rgb[..., 0] > 2 * rgb[..., 1]) & (rgb[..., 0] > 2 * rgb[..., 2])
    box = data.xpos[model.body("box").id]
    u, v = _projected(session, world, box)
    assert np.hypot(*np.subtract((u, v), _centroid(red))) < 1.5
    # Along the ray through that pixel, the box's surface is where MuJoCo's ray cast meets it.
    camera = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_CAMERA, "eye")
    column, row = round(u), round(v)
    described = session.handshake.cameras["eye"]
    direction_in_camera = np.array([(column - described.cx) / described.fx, -(row - described.cy) / described.fy, -1.0])
    rotation = data.cam_xmat[camera].reshape(3, 3)
    direction = rotation @ direction_in_camera
    hit = np.zeros(1, np.int32)
    along = mujoco.mj_ray(model, data, data.cam_xpos[camera], direction, None, 1, -1, hit)
    assert model.geom(int(hit[0])).name == "box"
    assert pictures.depth[row, column] == pytest.approx(along, rel=0.01)  # direction's optical-axis part is 1


def test_a_camera_given_by_focal_length_sensor_size_and_principal_point_projects_as_announced(session, world):
    model, data = world
    segmentation = session.sensors(images={"lens": "segmentation"}).images["lens"].segmentation
    for name in ("box", "ball"):
        seen = segmentation == model.geom(name).id
        assert seen.any(), name
        u, v = _projected(session, world, data.xpos[model.body(name).id], "lens")
        assert np.hypot(*np.subtract((u, v), _centroid(seen))) < 1.5, name


def test_segmentation_names_the_geom_seen_and_row_0_is_the_top_of_the_picture(session, world, pictures):
    model, data = world
    ball = model.geom("ball").id
    seen = pictures.segmentation == ball
    assert seen.any()
    u, v = _projected(session, world, data.xpos[model.body("ball").id])
    assert v < HEIGHT / 2  # farther along +y, so higher in the picture
    assert np.hypot(*np.subtract((u, v), _centroid(seen))) < 1.5


def test_a_reader_asking_for_images_while_a_controller_drives_gets_them(session):
    session.step(session.controls())  # the controller drives: its Controls are served in C++ meanwhile
    with Client(session.client.address, timeout=30.0) as reader:
        reader.send(SensorRequestMessage(images=[ImageRequest("eye", ["depth"])]))
        answer = reader.receive()
    assert isinstance(answer, SensorMessage)
    assert [(image.camera, image.kind) for image in answer.images] == [("eye", "depth")]


def test_a_camera_given_a_rate_is_rendered_only_on_its_steps(session):
    session.reset()
    controls = session.controls()
    shown = [bool(session.step(controls, images={"eye": CameraRequest(("depth",), every=3)}).images)
             for _ in range(6)]
    assert shown == [False, False, True, False, False, True]


@pytest.mark.parametrize("images, problem", [
    ({"mouth": "rgb"}, r"no camera named 'mouth'; valid names: 'eye', 'lens'"),
    ({"eye": "infrared"}, r"camera 'eye' renders no 'infrared' images; it renders rgb, depth, segmentation"),
    ({"eye": CameraRequest(("rgb",), every=0)}, r"camera 'eye': every 0 steps; a rate is every 1 step or more"),
    ({"eye": ()}, r"camera 'eye' is asked for no kind of image"),
])
def test_a_bad_image_request_is_refused_in_one_line_and_the_control_is_not_applied(session, images, problem):
    before = session.sensors().time
    with pytest.raises(RemoteError, match=problem):
        session.step(session.controls(), images=images)
    assert session.sensors().time == before
    assert session.step(session.controls()).time > before  # the session goes on


def test_images_asked_of_a_server_without_the_extension_are_refused_before_sending(session):
    plain = dataclasses.replace(session.handshake, server=ServerInfo(name="other", version="1", extensions=[]))
    original, session.handshake = session.handshake, plain
    try:
        with pytest.raises(ExtensionNotSupportedError, match="needs the coupler extension 'images'"):
            session.sensors(images={"eye": "rgb"})
    finally:
        session.handshake = original


@pytest.mark.parametrize("flag, problem", [
    ("eye=5000x10", r"a camera's size is 1x1 to 4096x4096 pixels"),
    ("eye=0x10", r"a camera's size is 1x1 to 4096x4096 pixels"),
    ("eye=10", r"--camera takes NAME=WIDTHxHEIGHT"),
])
def test_a_camera_size_out_of_bounds_or_misspelled_is_refused(flag, problem):
    with pytest.raises(Error, match=problem):
        parse_camera_size(flag)


def test_a_size_for_a_camera_the_model_lacks_is_refused_naming_the_cameras(world):
    model, _ = world
    refused = r"--camera nose: the model has no camera of that name; valid names: 'eye', 'lens'"
    with pytest.raises(Error, match=refused):
        camera_descriptions(model, {"nose": parse_camera_size("nose=10x10")})


def test_without_egl_or_osmesa_no_camera_is_announced_and_one_line_says_why(scene_path, monkeypatch):
    from coupler.mujoco import offscreen
    from coupler.mujoco.camera_serving import serve_cameras
    from coupler.mujoco.simulation import MujocoSimulation

    monkeypatch.setattr(offscreen, "_LIBRARIES", {"egl": ("libEGL-missing.so.1",),
                                                   "osmesa": ("libOSMesa-missing.so.8",)})
    monkeypatch.delenv("MUJOCO_GL", raising=False)
    monkeypatch.delenv("PYOPENGL_PLATFORM", raising=False)
    simulation = MujocoSimulation(scene_path)
    said = serve_cameras(simulation)
    assert said is not None and "\n" not in said
    assert said.startswith("cameras not served: no offscreen OpenGL: neither EGL nor OSMesa loads")
    assert simulation.handshake().cameras == {} and simulation.images is None
