"""examples/visual_servo.py against the arm scene: the box found through the camera alone, and the camera's
announced intrinsics checked against where the box truly is."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler import Session, ValueType  # noqa: E402
from coupler.scenes import scene_path  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from examples.visual_servo import CAMERA, main, red_blob, rotation  # noqa: E402
from peers import democlient  # noqa: E402

BOX_HALF = 0.025  # m, the arm scene's box


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with ServeProcess(["--scene", "arm"]) as server:
        yield server.endpoint


def test_the_hand_ends_above_the_box_it_found_through_the_camera(endpoint, capsys):
    assert main(["--addr", endpoint]) == 0
    assert "saw the box at pixel" in capsys.readouterr().out
    with Session(endpoint, timeout=30.0) as session:
        readings = session.sensors()
        box = np.asarray(readings.object_sensor("box", ValueType.POSITION))
        tool = np.asarray(readings.sensor("arm", "tcp", ValueType.POSITION))
    assert np.linalg.norm(tool[:2] - box[:2]) < 0.03
    assert 0.08 < tool[2] - (box[2] + BOX_HALF) < 0.16


@pytest.fixture(scope="module")
def at_rest(endpoint):
    """The camera's description, the box's true position, and the camera's colour and depth images, after a
    reset (the arm in its ready pose, the box where the scene puts it)."""
    with Session(endpoint, timeout=30.0, reset=True) as session:
        camera = session.handshake.cameras[CAMERA]
        readings = session.sensors(images={CAMERA: ("rgb", "depth")})
        box = np.asarray(readings.object_sensor("box", ValueType.POSITION))
    return camera, box, readings.images[CAMERA]


def _projected(camera, point: np.ndarray) -> tuple[float, float]:
    x, y, z = rotation(camera.quaternion).T @ (point - np.asarray(camera.position))
    return camera.cx + camera.fx * x / -z, camera.cy - camera.fy * y / -z


def _ray_cast_depth(camera, column: int, row: int) -> float:
    """The distance along the optical axis to the box's surface through pixel (column, row), by MuJoCo's ray
    cast in the scene at rest; the test fails if the ray meets anything else first."""
    model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    ray = rotation(camera.quaternion) @ np.array([(column - camera.cx) / camera.fx, -(row - camera.cy) / camera.fy,
                                                   -1.0])
    hit = np.zeros(1, np.int32)
    along = mujoco.mj_ray(model, data, np.asarray(camera.position), ray, None, 1, -1, hit)
    assert model.geom(int(hit[0])).name == "box"
    return along  # the ray's optical-axis part is 1


def test_the_box_projects_onto_its_blob_and_the_depth_there_is_the_distance_to_it(at_rest):
    camera, box, pictures = at_rest
    u, v = _projected(camera, box)
    assert np.hypot(u - red_blob(pictures.rgb)[0], v - red_blob(pictures.rgb)[1]) < 1.5
    column, row = round(u), round(v)
    assert pictures.depth[row, column] == pytest.approx(_ray_cast_depth(camera, column, row), rel=0.01)


def test_the_cpp_client_reads_the_same_images_and_intrinsics(endpoint, at_rest):
    camera, box, _ = at_rest
    found = subprocess.run([str(democlient()), "--addr", endpoint, "--find-red", CAMERA, "--timeout", "30"],
                           capture_output=True, text=True, timeout=60, check=True).stdout
    number = r"(-?[0-9.]+)"
    seen = re.search(rf"at pixel \({number}, {number}\), depth {number} m, world \({number}, {number}, {number}\)",
                     found)
    assert seen is not None, found
    column, row, depth, *world = (float(x) for x in seen.groups())
    u, v = _projected(camera, box)
    assert np.hypot(u - column, v - row) < 1.5
    assert depth == pytest.approx(_ray_cast_depth(camera, round(column), round(row)), rel=0.01)
    # Back-projected, the pixel lands on the box's surface: within half its diagonal of its centre.
    assert np.linalg.norm(np.asarray(world) - box) < BOX_HALF * 3**0.5
