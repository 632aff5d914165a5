"""Camera images in a recording: written again as Foxglove images, with the camera's calibration."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco")

from foxglove_schemas_protobuf.CameraCalibration_pb2 import CameraCalibration  # noqa: E402
from foxglove_schemas_protobuf.RawImage_pb2 import RawImage  # noqa: E402

from coupler import Session  # noqa: E402
from coupler.record.recording import Recording  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402

SCENE = """
<mujoco>
  <worldbody>
    <light pos="0 0 3"/>
    <body name="pendulum" pos="0 0 0.5"><joint name="hinge" axis="0 1 0"/><geom size="0.05"/></body>
    <camera name="eye" pos="0 -1 0.5" xyaxes="1 0 0 0 0 1"/>
  </worldbody>
  <actuator><motor name="hinge" joint="hinge"/></actuator>
</mujoco>
"""


def test_images_asked_for_are_recorded_as_foxglove_images_with_the_cameras_calibration(tmp_path):
    scene = tmp_path / "seen.xml"
    scene.write_text(SCENE)
    path = tmp_path / "run.mcap"
    with ServeProcess(["--scene", str(scene), "--camera", "eye=8x6", "--record", str(path)]) as server:
        with Session(server.endpoint, timeout=30.0) as session:
            camera = session.handshake.cameras["eye"]
            session.step(session.controls(), images={"eye": ("rgb", "depth")})
            session.sensors(images={"eye": "segmentation"})
    recorded = [(message.topic, message.data) for message in Recording(path)
                if message.topic.startswith("/coupler/camera/")]
    topics = [topic for topic, _ in recorded]
    assert topics == ["/coupler/camera/eye", "/coupler/camera/eye/calibration", "/coupler/camera/eye/depth",
                      "/coupler/camera/eye/segmentation"]
    images = {topic: RawImage.FromString(data) for topic, data in recorded if not topic.endswith("calibration")}
    assert [(i.encoding, i.width, i.height, i.step, len(i.data)) for i in images.values()] == [
        ("rgb8", 8, 6, 24, 144), ("32FC1", 8, 6, 32, 192), ("32SC1", 8, 6, 32, 192)]
    calibration = CameraCalibration.FromString(recorded[1][1])
    assert list(calibration.K) == pytest.approx([camera.fx, 0, camera.cx, 0, camera.fy, camera.cy, 0, 0, 1])
