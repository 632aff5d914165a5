"""examples/visual_servo.py against the arm scene: the box found through the camera alone, and the camera's
announced intrinsics checked against where the box truly is."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler import Session, ValueType  # noqa: E402
from coupler.scenes import scene_path  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from examples.visual_servo import CAMERA, main, red_blob, rotation  # noqa: E402

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


def test_the_box_projects_onto_its_blob_and_the_depth_there_is_the_distance_to_it(endpoint):
    with Session(endpoint, timeout=30.0, reset=True) as session:
        camera = session.handshake.cameras[CAMERA]
        readings = session.sensors(images={CAMERA: ("rgb", "depth")})
        box = np.asarray(readings.object_sensor("box", ValueType.POSITION))
    pictures = readings.images[CAMERA]
    turn = rotation(camera.quaternion)
    x, y, z = turn.T @ (box - np.asarray(camera.position))
    u, v = camera.cx + camera.fx * x / -z, camera.cy - camera.fy * y / -z
    assert np.hypot(u - red_blob(pictures.rgb)[0], v - red_blob(pictures.rgb)[1]) < 1.5
    # The distance along the ray through that pixel to the first surface, by MuJoCo's ray cast in the same state.
    model = mujoco.MjModel.from_xml_path(str(scene_path("arm")))
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    column, row = round(u), round(v)
    ray = turn @ np.array([(column - camera.cx) / camera.fx, -(row - camera.cy) / camera.fy, -1.0])
    hit = np.zeros(1, np.int32)
    along = mujoco.mj_ray(model, data, np.asarray(camera.position), ray, None, 1, -1, hit)
    assert model.geom(int(hit[0])).name == "box"
    assert pictures.depth[row, column] == pytest.approx(along, rel=0.01)  # the ray's optical-axis part is 1
