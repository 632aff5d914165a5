"""`coupler serve --worlds N --record` keeps every world's images a Control for every world asked for: world K's on
`/coupler/world/K/camera/NAME` (`.../depth`, `.../segmentation`, `.../calibration`), stamped with world K's
simulated time, each exactly the pixels the answer carried for world K."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")

from foxglove_schemas_protobuf.CameraCalibration_pb2 import CameraCalibration  # noqa: E402
from foxglove_schemas_protobuf.RawImage_pb2 import RawImage  # noqa: E402

from coupler import Session  # noqa: E402
from coupler.controller.world_session import WorldSession  # noqa: E402
from coupler.record.recorded_images import RecordedImages  # noqa: E402
from coupler.record.recording import Recording  # noqa: E402
from coupler.record.world_recording import WorldRecording  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.wire.codec import encode  # noqa: E402
from coupler.wire.messages import Image, SensorMessage, SharedSlice  # noqa: E402
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images  # noqa: E402

# A pendulum driven differently in each world, so that each world's picture is its own.
SCENE = """
<mujoco>
  <option timestep="0.01"/>
  <worldbody>
    <light pos="0 0 3"/>
    <geom type="plane" size="1 1 0.1" rgba="0.2 0.3 0.4 1"/>
    <body name="pendulum" pos="0 0 0.5">
      <joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05" rgba="1 0 0 1"/>
    </body>
    <camera name="eye" pos="0 -1.2 0.5" xyaxes="1 0 0 0 0 1"/>
  </worldbody>
  <actuator><motor name="hinge" joint="hinge"/></actuator>
</mujoco>
"""
WORLDS = 4
# Big enough that the worlds' images would go through a ring of shared memory (its 16 KiB threshold), were one
# offered: 4 worlds of 32x24 in three kinds take 33 KiB.
WIDTH, HEIGHT = 32, 24
ENCODINGS = {"rgb": ("rgb8", 3), "depth": ("32FC1", 4), "segmentation": ("32SC1", 4)}
TOPIC_KINDS = {"rgb": "", "depth": "/depth", "segmentation": "/segmentation"}


@dataclass
class Recorded:
    path: Path
    ring_offered: bool  # the recording server's handshake, to a client on its host that would take a ring
    expected: dict[str, list[tuple[bytes, float]]] = field(default_factory=lambda: defaultdict(list))
    ordinary: bytes = b""  # the image of the ordinary Control's answer
    intrinsics: list[float] = field(default_factory=list)  # K as the handshake announces the camera
    reset_times: np.ndarray = field(default_factory=lambda: np.zeros(0))
    messages: dict[str, list] = field(default_factory=lambda: defaultdict(list))  # topic -> recorded messages


def _topic(world: int, kind: str) -> str:
    return f"/coupler/world/{world}/camera/eye{TOPIC_KINDS[kind]}"


TORQUES = np.linspace(-2.0, 2.0, WORLDS).reshape(WORLDS, 1)
ALL_KINDS = ("rgb", "depth", "segmentation")


def _drive(worlds: WorldSession, run: Recorded, kinds: tuple[str, ...], image_worlds: list[int] = (),
           resets: list[int] = ()) -> np.ndarray:
    """One Control for every world asking for `kinds` of `image_worlds` (every world: empty); what its answer
    carried, per topic, into `run.expected`; the worlds' times."""
    worlds.send(TORQUES, steps=3, resets=resets, images={"eye": kinds}, image_worlds=image_worlds)
    _, times = worlds.receive()
    pictures = worlds.images["eye"]
    for kind in kinds:
        for stack_index, world in enumerate(pictures.worlds.tolist()):
            run.expected[_topic(world, kind)].append((getattr(pictures, kind)[stack_index].tobytes(),
                                                      float(times[world])))
    return times


def _drive_asking_for_shared_memory(session: Session, run: Recorded) -> None:
    """A Control for every world whose answer's arrays are asked through the ring, mapped or not; what its answer
    carried into `run.expected` (read without a mapping: ProtocolError had any array come through a ring)."""
    session.client.send_frame(encode_world_control(WORLDS, TORQUES, 3, images=[("eye", ALL_KINDS)],
                                                   shared_memory=True))
    _, times, _, stacks, worlds = read_world_answer_with_images(session.client.receive_frame(30.0))
    for stack in stacks:
        for index, world in enumerate(worlds.tolist()):
            run.expected[_topic(world, stack.kind)].append((stack.pixels[index].tobytes(), float(times[world])))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Recorded:
    folder = tmp_path_factory.mktemp("world_images")
    scene = folder / "pendulum.xml"
    scene.write_text(SCENE)
    run = Recorded(folder / "run.mcap", ring_offered=True)
    with ServeProcess(["--scene", str(scene), "--camera", f"eye={WIDTH}x{HEIGHT}", "--worlds", str(WORLDS),
                       "--record", str(run.path)]) as server:
        assert server.endpoint.startswith("ipc://")
        # Through the socket by choice, then a client that takes shared memory wherever its server offers it.
        with Session(server.endpoint, timeout=30.0, shared_memory=False) as session:
            worlds = WorldSession(session)
            eye = session.handshake.cameras["eye"]
            run.intrinsics = [eye.fx, 0.0, eye.cx, 0.0, eye.fy, eye.cy, 0.0, 0.0, 1.0]
            _drive(worlds, run, ALL_KINDS)
            run.reset_times = _drive(worlds, run, ("rgb",), resets=[1])
            _drive(worlds, run, ("depth",), image_worlds=[0, 2])
            run.ordinary = session.step(session.controls(), images={"eye": "rgb"}).images["eye"].rgb.tobytes()
        with Session(server.endpoint, timeout=30.0) as session:
            run.ring_offered = session.handshake.shared_memory is not None or session.shared_images is not None
            _drive(WorldSession(session), run, ALL_KINDS)
            _drive_asking_for_shared_memory(session, run)
    for message in Recording(run.path):
        run.messages[message.topic].append(message)
    return run


def _images(recorded: Recorded, topic: str) -> list[RawImage]:
    return [RawImage.FromString(message.data) for message in recorded.messages[topic]]


def test_each_worlds_images_and_calibration_have_topics_of_their_own(recorded):
    topics = {topic for topic in recorded.messages if topic.startswith("/coupler/world/")}
    assert topics == {f"/coupler/world/{world}/camera/eye{suffix}" for world in range(WORLDS)
                      for suffix in ("", "/depth", "/segmentation", "/calibration")}


def test_world_ks_recorded_images_are_the_pixels_its_answers_carried_for_world_k(recorded):
    assert len(recorded.expected) == 3 * WORLDS
    for topic, expected in recorded.expected.items():
        assert [image.data for image in _images(recorded, topic)] == [pixels for pixels, _ in expected], topic
    assert len({pixels for pixels, _ in recorded.expected[_topic(0, "rgb")] + recorded.expected[_topic(3, "rgb")]}) \
        == len(recorded.expected[_topic(0, "rgb")]) * 2  # every world's pictures differ: none stands for another


def test_each_kinds_images_have_its_encoding_size_and_row_step(recorded):
    for world in range(WORLDS):
        for kind, (encoding, pixel_bytes) in ENCODINGS.items():
            images = _images(recorded, _topic(world, kind))
            assert images and {(i.encoding, i.width, i.height, i.step, len(i.data), i.frame_id) for i in images} == {
                (encoding, WIDTH, HEIGHT, WIDTH * pixel_bytes, WIDTH * HEIGHT * pixel_bytes, "eye")}


def test_each_worlds_images_are_published_at_that_worlds_simulated_time(recorded):
    assert recorded.reset_times[1] != recorded.reset_times[0]  # world 1 was reset as the others stepped on
    for topic, expected in recorded.expected.items():
        published = [message.publish_time for message in recorded.messages[topic]]
        assert published == [round(time * 1e9) for _, time in expected], topic


def test_each_worlds_images_are_stamped_with_their_log_time_as_the_body_poses_are(recorded):
    for topic in recorded.expected:
        stamps = [image.timestamp.seconds * 10**9 + image.timestamp.nanos for image in _images(recorded, topic)]
        assert stamps == [message.log_time for message in recorded.messages[topic]], topic


def test_calibration_is_recorded_once_per_world_and_camera_in_each_session(recorded):
    sessions = len(recorded.messages["/coupler/answers/Handshake"])
    assert sessions == 2
    for world in range(WORLDS):
        messages = recorded.messages[f"/coupler/world/{world}/camera/eye/calibration"]
        assert len(messages) == sessions
        for message in messages:
            calibration = CameraCalibration.FromString(message.data)
            assert (calibration.frame_id, calibration.width, calibration.height) == ("eye", WIDTH, HEIGHT)
            assert list(calibration.K) == pytest.approx(recorded.intrinsics)


def test_an_ordinary_answers_image_stays_on_the_camera_topic(recorded):
    assert [image.data for image in _images(recorded, "/coupler/camera/eye")] == [recorded.ordinary]


def test_a_recording_server_offers_no_ring_so_a_same_host_clients_images_all_reach_the_recording(recorded):
    # The recorder reads the published frames: pixels in a ring would not be in them.
    assert not recorded.ring_offered
    for topic, expected in recorded.expected.items():  # its answers, the last two, asked for every kind and world
        assert [image.data for image in _images(recorded, topic)[-2:]] == [pixels for pixels, _ in expected[-2:]]


def test_a_chosen_world_of_the_recording_holds_its_images_as_a_lone_servers_recording_does(recorded):
    topics = defaultdict(list)
    for message in WorldRecording(recorded.path, 2):
        if "/camera/" in message.topic:
            topics[message.topic].append(message.data)
    assert sorted(topics) == ["/coupler/camera/eye", "/coupler/camera/eye/calibration", "/coupler/camera/eye/depth",
                              "/coupler/camera/eye/segmentation"]
    assert [RawImage.FromString(data).data for data in topics["/coupler/camera/eye"]] == [
        pixels for pixels, _ in recorded.expected[_topic(2, "rgb")]]


def test_an_image_whose_pixels_are_not_in_the_answer_is_left_out_saying_so_once(caplog):
    # The pixels lie in shared memory, out of the recorder's reach.
    stacks = [Image("eye", kind, WIDTH, HEIGHT, shared=SharedSlice(slot=1)) for kind in ("rgb", "depth")]
    answer = SensorMessage(world_times=[0.1, 0.2], image_worlds=[0, 1], world_images=stacks)
    with caplog.at_level(logging.WARNING, logger="coupler.record.recorded_images"):
        assert RecordedImages().messages(encode(answer), 0) == []
    assert len(caplog.records) == 1 and "does not hold its pixels" in caplog.text
