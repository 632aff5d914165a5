"""The C++ client's images of every world (coupler::WorldSession, through `democlient --worlds-images`): world k's
pictures are, byte for byte, the ones the Python WorldSession gets of world k, through the socket (tcp) and
through the server's shared memory (ipc)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

# The server renders with EGL; so does the Python client's process, which renders nothing itself.
os.environ.setdefault("MUJOCO_GL", "egl")
pytest.importorskip("mujoco")

from coupler import Session  # noqa: E402
from coupler.controller.world_session import WorldSession  # noqa: E402
from coupler.serve.serve_process import ServeProcess  # noqa: E402
from coupler.serve.shared_images import MIN_BYTES  # noqa: E402
from peers import democlient, free_tcp_address, run  # noqa: E402
from camera_rail import rail_scene  # noqa: E402

WORLDS = 3
WIDTH, HEIGHT = 32, 24  # every kind of every world: 3 x 32 x 24 x (3 + 4 + 4) bytes, above MIN_BYTES
KINDS = ("rgb", "depth", "segmentation")
# A red cart on a rail across the camera's view, placed apart in each world.
SCENE = rail_scene()
POSITIONS = np.array([[0.0], [0.3], [-0.3]])


def _fnv1a(data: bytes) -> str:
    value = 14695981039346656037
    for byte in data:
        value = ((value ^ byte) * 1099511628211) % 2**64
    return f"{value:016x}"


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rail") / "rail.xml"
    path.write_text(SCENE)
    return path


@pytest.fixture(scope="module", params=["tcp", "ipc"])
def served(request: pytest.FixtureRequest, scene_path: Path) -> Iterator[tuple[str, str, list[list[str]]]]:
    """(transport, address, the Python client's line for each world as democlient prints it: "world K time T", then
    "KIND WxH HASH" per kind), with every world's cart placed apart."""
    address = free_tcp_address() if request.param == "tcp" else None
    flags = ["--scene", str(scene_path), "--worlds", str(WORLDS), "--camera", f"eye={WIDTH}x{HEIGHT}"]
    with ServeProcess(flags, address=address) as server:
        with Session(server.endpoint, timeout=30.0) as session:
            worlds = WorldSession(session)
            worlds.send(resets=range(WORLDS), qpos=POSITIONS, images={"eye": KINDS})
            _, times = worlds.receive()
            pictures = worlds.images["eye"]
            expected = [["world", str(k), "time", f"{times[k]:g}"] +
                        [word for kind in KINDS
                         for word in (kind, f"{WIDTH}x{HEIGHT}", _fnv1a(getattr(pictures, kind)[k].tobytes()))]
                        for k in range(WORLDS)]
        # Closed: the C++ client is the controller now.
        yield request.param, server.endpoint, expected


def test_the_images_asked_for_take_more_than_the_shared_memory_threshold():
    assert WORLDS * WIDTH * HEIGHT * (3 + 4 + 4) >= MIN_BYTES


def test_world_ks_pictures_in_the_cpp_client_equal_the_python_clients(served):
    transport, endpoint, expected = served
    result = run([str(democlient()), "--addr", endpoint, "--worlds-images", "eye", "--timeout", "30"], timeout=60)
    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    assert f"through shared memory: {'yes' if transport == 'ipc' else 'no'}" in lines
    assert [line.split() for line in lines if line.startswith("world ")] == expected


def test_the_worlds_pictures_differ_as_their_carts_do(served):
    _, _, expected = served
    assert len({" ".join(words[4:]) for words in expected}) == WORLDS


def test_an_unknown_camera_is_refused_in_one_line_naming_the_cameras(served):
    _, endpoint, _ = served
    result = run([str(democlient()), "--addr", endpoint, "--worlds-images", "nose", "--timeout", "30"], timeout=60)
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "democlient: the server offers no camera named 'nose'; it offers eye"
