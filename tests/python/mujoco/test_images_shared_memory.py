"""Images through shared memory (the "shm" extension): a server on an ipc:// address offers a ring of
buffers, a session on the same host maps it and gets its images as views of it, without copies."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")

from coupler import Session  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.serve.shared_images import SLOTS, offered_on  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402
from coupler.wire.messages import EXTENSION_SHARED_MEMORY, SharedSlice  # noqa: E402

# A hinge to step, a box and a ball to see; 96x72 rgb takes 20736 bytes: enough for shared memory; 16x12 rgb, 576
# bytes, is not.
SCENE = """
<mujoco model="seen">
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="2 2 0.1" rgba="0.3 0.3 0.3 1"/>
    <body name="pendulum" pos="-0.2 0 0.5">
      <joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" rgba="0.2 0.2 0.8 1"/>
    </body>
    <body name="box" pos="0.08 0.05 0.1">
      <geom name="box" type="box" size="0.06 0.06 0.06" rgba="0.9 0.1 0.1 1"/>
    </body>
    <camera name="eye" pos="0.05 -0.5 0.9" xyaxes="1 0 0 0 0.8 0.6" fovy="60" resolution="96 72"/>
    <camera name="tiny" pos="0.05 -0.5 0.9" xyaxes="1 0 0 0 0.8 0.6" fovy="60" resolution="16 12"/>
  </worldbody>
  <actuator><motor name="hinge" joint="hinge"/></actuator>
</mujoco>
"""


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("shared") / "seen.xml"
    path.write_text(SCENE)
    return path


@pytest.fixture(scope="module")
def server(scene_path: Path) -> Iterator[ServeProcess]:
    with ServeProcess(["--scene", str(scene_path)]) as server:
        yield server


@pytest.fixture
def session(server: ServeProcess) -> Iterator[Session]:
    # One at a time: a closed session hands the scene over at once ("goodbye").
    with Session(server.endpoint, timeout=30.0) as session:
        yield session


def test_an_ipc_server_announces_a_ring_the_session_maps(session):
    assert session.handshake.supports(EXTENSION_SHARED_MEMORY)
    assert session.handshake.shared_memory is not None
    assert session.shared_images is not None


def test_the_pixels_through_shared_memory_equal_those_through_the_socket(server):
    everything = {"eye": ("rgb", "depth", "segmentation")}
    with Session(server.endpoint, timeout=30.0) as session:
        shared = session.sensors(images=everything)
        pictures = {kind: np.array(getattr(shared.images["eye"], kind)) for kind in everything["eye"]}
    assert all(image.shared is not None for image in shared.message.images)
    with Session(server.endpoint, timeout=30.0, shared_memory=False) as session:
        unshared = session.sensors(images=everything)  # of the same state: nothing stepped
    assert all(image.shared is None for image in unshared.message.images)
    for kind, picture in pictures.items():
        np.testing.assert_array_equal(picture, getattr(unshared.images["eye"], kind))


def test_a_session_that_opts_out_gets_its_images_through_the_socket(server):
    with Session(server.endpoint, timeout=30.0, shared_memory=False) as session:
        assert session.handshake.shared_memory is not None  # offered, not taken
        assert session.shared_images is None
        assert session.sensors(images={"eye": "rgb"}).message.images[0].shared is None


def test_images_of_a_step_come_through_shared_memory_as_read_only_views(session):
    controls = session.controls()
    readings = session.step(controls, images={"eye": "rgb"})
    (image,) = readings.message.images
    assert image.shared is not None
    rgb = readings.images["eye"].rgb
    assert rgb.shape == (72, 96, 3) and not rgb.flags.writeable
    with pytest.raises(ValueError):
        rgb[0, 0, 0] = 1


def test_a_view_stays_valid_until_the_ring_has_come_round(session):
    first = session.sensors(images={"eye": "rgb"}).message.images[0]
    for _ in range(SLOTS - 1):
        session.sensors(images={"eye": "rgb"})
    assert session.shared_images.still_valid(first)
    session.sensors(images={"eye": "rgb"})
    assert not session.shared_images.still_valid(first)


def test_images_smaller_than_the_ring_takes_come_through_the_socket(session):
    (image,) = session.sensors(images={"tiny": "rgb"}).message.images
    assert image.shared is None and len(image.data) == 16 * 12 * 3


def test_the_ring_can_be_opened_by_its_owner_only(session):
    mode = os.stat(session.handshake.shared_memory.path).st_mode
    assert stat.S_IMODE(mode) == 0o600


def test_an_unknown_buffer_is_refused_in_one_line(session):
    image = session.sensors(images={"eye": "rgb"}).message.images[0]
    unknown = SharedSlice(slot=99, sequence=image.shared.sequence, offset=0, length=image.shared.length)
    with pytest.raises(Error, match=f"^an answer names shared buffer 99; the ring has buffers 0 to {SLOTS - 1}$"):
        session.shared_images.view(unknown)


def _ring_mappings() -> int:
    return sum("/memfd:coupler-shm" in line for line in Path("/proc/self/maps").read_text().splitlines())


def test_a_session_maps_the_ring_once_for_its_images_and_their_validity(server):
    before = _ring_mappings()
    with Session(server.endpoint, timeout=30.0) as session:
        image = session.sensors(images={"eye": "rgb"}).message.images[0]
        assert session.shared_images.still_valid(image) and not image.data.flags.writeable
        assert _ring_mappings() == before + 1


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:5555", "tcp://192.0.2.1:5555", "ws://127.0.0.1:5555"])
def test_a_server_offers_no_ring_where_a_client_may_be_on_another_host(address):
    assert not offered_on(address)


def test_a_publishing_server_sends_images_through_the_socket_so_that_they_are_published(scene_path, tmp_path):
    with ServeProcess(["--scene", str(scene_path), "--publish", f"ipc://{tmp_path / 'frames.sock'}"]) as server:
        with Session(server.endpoint, timeout=30.0) as session:
            assert session.handshake.shared_memory is None
            assert session.sensors(images={"eye": "rgb"}).message.images[0].data


def test_nothing_of_the_ring_is_left_after_the_server_is_killed(scene_path):
    with ServeProcess(["--scene", str(scene_path)]) as server:
        with Session(server.endpoint, timeout=30.0) as session:
            path = session.handshake.shared_memory.path
            # A memfd: no name in /dev/shm to clean up, only the server's descriptor.
            assert os.readlink(path).startswith("/memfd:")
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=10)
            assert not os.path.exists(path)


# A reader that maps the ring, holds an image's view of it, says so and waits to be killed.
_HOLDING_READER = """
import sys, time
from coupler import _native
from coupler.transport.client import Client
from coupler.wire.messages import ImageRequest, SensorRequestMessage, SharedMemoryRing
ring = _native.SharedRingReader(SharedMemoryRing(sys.argv[2], *map(int, sys.argv[3:])))
with Client(sys.argv[1], timeout=30.0) as client:
    answer = client.request(SensorRequestMessage(images=[ImageRequest("eye", ["rgb"])], shared_memory=True))
held = ring.view(answer.images[0].shared)
print("holding", flush=True)
time.sleep(60)
"""


def test_a_client_killed_while_holding_shared_images_blocks_nothing(server, session):
    ring = session.handshake.shared_memory
    ring_args = [ring.path, str(ring.slots), str(ring.slot_bytes), str(ring.data_offset), str(ring.min_bytes)]
    reader = subprocess.Popen([sys.executable, "-c", _HOLDING_READER, server.endpoint, *ring_args],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout is not None and reader.stdout.readline().strip() == "holding"
    finally:
        reader.kill()
        reader.wait(timeout=10)
    for _ in range(SLOTS + 1):  # every buffer written again, the dead reader's one too
        assert session.sensors(images={"eye": "rgb"}).images["eye"].rgb.shape == (72, 96, 3)
