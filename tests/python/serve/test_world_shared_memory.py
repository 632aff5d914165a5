"""The arrays of a batched server's answers through shared memory (the "shm" extension): a session on the same
host that mapped the server's ring gets every world's readings, world data and image stacks as views of it, the
same numbers as through the socket."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("MUJOCO_GL", "egl")
pytest.importorskip("mujoco")

from coupler import Session  # noqa: E402
from coupler import _native  # noqa: E402
from coupler.controller.world_session import WorldSession  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.serve.shared_images import MIN_BYTES, SLOTS  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402
from coupler.wire.world_frames import encode_world_control, read_world_answer_with_images  # noqa: E402

# Enough worlds that their readings alone take more than MIN_BYTES; images of IMAGED worlds do too.
WORLDS = 192
IMAGED = list(range(8))
WIDTH, HEIGHT = 32, 24
SCENE = f"""
<mujoco model="rail">
  <worldbody>
    <light pos="0 0 3" dir="0 0 -1"/>
    <geom name="floor" type="plane" size="2 2 0.1" rgba="0.3 0.3 0.3 1"/>
    <body name="cart" pos="0 0 0.1">
      <joint name="slide" type="slide" axis="1 0 0" damping="0.1"/>
      <geom name="cart" type="box" size="0.08 0.08 0.08" rgba="0.9 0.1 0.1 1"/>
      <body name="pole" pos="0 0 0.08">
        <joint name="hinge" axis="0 1 0" damping="0.01"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02" rgba="0.2 0.2 0.8 1"/>
      </body>
    </body>
    <camera name="eye" pos="0 -1 0.8" xyaxes="1 0 0 0 0.6 0.8" fovy="60" resolution="{WIDTH} {HEIGHT}"/>
  </worldbody>
  <actuator><motor name="slide" joint="slide"/><motor name="hinge" joint="hinge"/></actuator>
</mujoco>
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServeProcess]:
    path: Path = tmp_path_factory.mktemp("rail") / "rail.xml"
    path.write_text(SCENE)
    with ServeProcess(["--scene", str(path), "--worlds", str(WORLDS), "--world-data", "qpos"]) as server:
        yield server


def _controls(worlds: WorldSession, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, (worlds.count, worlds.control_width))


def _answer(session: Session, frame: bytes) -> bytes:
    session.client.send_frame(frame)
    return session.client.receive_frame(session.timeout)


def test_the_readings_of_many_worlds_take_more_than_the_threshold(server):
    with Session(server.endpoint, timeout=30.0) as session:
        worlds = WorldSession(session)
        assert worlds.count * worlds.sensor_width * 8 >= MIN_BYTES


def test_the_worlds_arrays_through_shared_memory_equal_those_through_the_socket(server):
    with Session(server.endpoint, timeout=30.0) as session:
        worlds = WorldSession(session)
        assert session.shared_images is not None
        worlds.send(_controls(worlds, 1), steps=3)
        sensors, times = worlds.receive()
        shared = (np.array(sensors), np.array(times), np.array(worlds.data))
        assert not sensors.flags.writeable and not worlds.data.flags.writeable
    with Session(server.endpoint, timeout=30.0, shared_memory=False) as session:
        worlds = WorldSession(session)
        assert session.shared_images is None
        worlds.send(None)  # steps no world: the same state, read again
        sensors, times = worlds.receive()
        through_socket = (sensors, times, worlds.data)
    for mine, theirs in zip(shared, through_socket, strict=True):
        assert mine.shape == theirs.shape
        assert mine.tobytes() == theirs.tobytes()


def test_a_session_that_mapped_the_ring_gets_only_where_the_arrays_lie(server):
    with Session(server.endpoint, timeout=30.0) as session:
        worlds = WorldSession(session)
        frame = _answer(session, encode_world_control(WORLDS, np.zeros(0), shared_memory=True))
        read = _native.read_world_sensors(frame)
        assert read[5] is not None and read[6] is not None  # the sensors' and the world data's slices
        assert read[0].size == 0 and read[2].size == 0
        assert len(frame) < worlds.count * worlds.sensor_width * 8 // 4


def test_a_session_that_opted_out_gets_the_arrays_in_the_frame(server):
    with Session(server.endpoint, timeout=30.0, shared_memory=False) as session:
        worlds = WorldSession(session)
        frame = _answer(session, encode_world_control(WORLDS, np.zeros(0)))
        read = _native.read_world_sensors(frame)
        assert read[5] is None and read[6] is None
        assert read[0].size == worlds.count * worlds.sensor_width


def test_a_batched_server_over_tcp_sends_the_arrays_through_the_socket(tmp_path):
    path = tmp_path / "rail.xml"
    path.write_text(SCENE)
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    with ServeProcess(["--scene", str(path), "--worlds", str(WORLDS)], address=f"tcp://127.0.0.1:{port}") as tcp:
        with Session(tcp.endpoint, timeout=30.0) as session:
            assert session.handshake.shared_memory is None and session.shared_images is None
            worlds = WorldSession(session)
            worlds.send(None)
            sensors, _ = worlds.receive()
            assert sensors.shape == (WORLDS, worlds.sensor_width)


def test_world_image_stacks_through_shared_memory_equal_those_through_the_socket(server):
    with Session(server.endpoint, timeout=30.0) as session:
        worlds = WorldSession(session)
        worlds.send(_controls(worlds, 2), images={"eye": ("rgb", "depth")}, image_worlds=IMAGED)
        worlds.receive()
        shared = {kind: np.array(getattr(worlds.images["eye"], kind)) for kind in ("rgb", "depth")}
        frame = _answer(session, encode_world_control(WORLDS, np.zeros(0), images=[("eye", ("rgb",))],
                                                      image_worlds=IMAGED, shared_memory=True))
        assert not isinstance(_native.read_world_sensors(frame)[3][0][4], bytes)  # a slice, not the pixels
    with Session(server.endpoint, timeout=30.0, shared_memory=False) as session:
        worlds = WorldSession(session)
        worlds.send(None, images={"eye": ("rgb", "depth")}, image_worlds=IMAGED)
        worlds.receive()
        assert shared["rgb"].shape == (len(IMAGED), HEIGHT, WIDTH, 3)
        for kind, pixels in shared.items():
            assert pixels.tobytes() == getattr(worlds.images["eye"], kind).tobytes()


def test_arrays_read_after_their_buffer_was_rewritten_give_a_one_line_error(server):
    with Session(server.endpoint, timeout=30.0) as session:
        stale = _answer(session, encode_world_control(WORLDS, np.zeros(0), shared_memory=True))
        for _ in range(SLOTS):
            _answer(session, encode_world_control(WORLDS, np.zeros(0), shared_memory=True))
        with pytest.raises(Error) as raised:
            read_world_answer_with_images(stale, session.shared_images)
    assert "\n" not in str(raised.value)
    assert "overwritten" in str(raised.value)


def test_world_images_beyond_the_frame_limit_come_through_shared_memory(server):
    many = list(range(32))  # 32 pictures of 2304 bytes: beyond a 64 KiB frame
    with Session(server.endpoint, timeout=30.0, max_frame_bytes=65536) as session:
        worlds = WorldSession(session)
        worlds.send(None, images={"eye": "rgb"}, image_worlds=many)
        worlds.receive()
        assert worlds.images["eye"].rgb.shape == (len(many), HEIGHT, WIDTH, 3)
    with Session(server.endpoint, timeout=30.0, max_frame_bytes=65536, shared_memory=False) as session:
        with pytest.raises(Error, match="frame limit"):
            WorldSession(session).send(None, images={"eye": "rgb"}, image_worlds=many)


def test_a_vector_env_observes_the_same_through_shared_memory_as_through_the_socket(server):
    from coupler.gym.vector_env import CouplerVectorEnv

    seen = {}
    for shared in (True, False):
        envs = CouplerVectorEnv(num_envs=WORLDS, addresses=[server.endpoint], timeout=30.0, shared_memory=shared)
        try:
            assert (envs._worlds[0].session.shared_images is not None) == shared
            observations = [envs.reset(seed=0)[0]]
            for seed in range(3):
                actions = np.random.default_rng(seed).uniform(-1, 1, envs.action_space.shape)
                observations.append(envs.step(actions.astype(envs.action_space.dtype))[0])
        finally:
            envs.close()
        seen[shared] = observations
    for mine, theirs in zip(seen[True], seen[False], strict=True):
        assert mine.tobytes() == theirs.tobytes()
