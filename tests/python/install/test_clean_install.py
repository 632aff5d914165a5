"""From a clean install: the package built from the repository and installed into fresh virtual
environments outside it (no PYTHONPATH, cwd a temporary directory) serves and describes scenes.

The wheel is built once per session and installed twice: with the `sim` extra
(MuJoCo scenes) and without it (a controller-only install). Building it
compiles the C++ library, several minutes on a busy machine: deselect with
`-m "not install"`.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from coupler.transport.client import Client
from coupler.wire.messages import HandshakeInitMessage, HandshakeMessage
from fresh_venvs import BUILD_TIMEOUT, INSTALL_TIMEOUT, fresh_venv, run, serving
from peers import REPO, free_tcp_address

pytestmark = pytest.mark.install


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package's wheel, built from the repository in a build directory of its own."""
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-w", str(out),
               f"--config-settings=build-dir={out / 'build'}", str(REPO)]
    if importlib.util.find_spec("scikit_build_core") is not None:
        command.insert(4, "--no-build-isolation")  # the build backend is at hand: no fresh build environment
    result = run(command, out, BUILD_TIMEOUT)
    assert result.returncode == 0, result.stdout[-4000:]
    return next(out.glob("coupler-*.whl"))


def _installed(wheel: Path, root: Path, extra: str) -> Path:
    """A fresh venv under `root` with the wheel (and `extra`) installed; its bin directory."""
    bin_dir = fresh_venv(root)
    requirement = f"coupler{extra} @ {wheel.as_uri()}"
    result = run([str(bin_dir / "python"), "-m", "pip", "install", "--disable-pip-version-check", requirement],
                 root, INSTALL_TIMEOUT)
    assert result.returncode == 0, result.stdout[-4000:]
    return bin_dir


@pytest.fixture(scope="module")
def with_sim(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _installed(wheel, tmp_path_factory.mktemp("with-sim"), "[sim]")


@pytest.fixture(scope="module")
def without_sim(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _installed(wheel, tmp_path_factory.mktemp("without-sim"), "")


def _serving(bin_dir: Path, scene: str) -> Iterator[str]:
    address = free_tcp_address()
    with serving([str(bin_dir / "coupler"), "serve", "--scene", scene, "--addr", address], address, bin_dir):
        yield address


@pytest.fixture
def arm_server(with_sim: Path) -> Iterator[str]:
    yield from _serving(with_sim, "arm")


def test_the_installed_package_is_not_the_repositorys(with_sim: Path):
    result = run([str(with_sim / "python"), "-c", "import coupler; print(coupler.__file__)"], with_sim, 60)
    assert result.returncode == 0, result.stdout
    assert str(REPO) not in result.stdout


def test_coupler_serve_serves_the_arm_scene(arm_server: str):
    with Client(arm_server, timeout=5.0) as client:
        answer = client.request(HandshakeInitMessage())
    assert isinstance(answer, HandshakeMessage)
    assert "arm" in answer.objects


def test_coupler_info_prints_the_arm_scenes_ranges(with_sim: Path, arm_server: str):
    result = run([str(with_sim / "coupler"), "info", "--addr", arm_server], with_sim, 60)
    assert result.returncode == 0, result.stdout
    assert "-3.0718 .. -0.0698 rad" in result.stdout


def test_without_the_sim_extra_the_static_scene_is_served(without_sim: Path):
    for address in _serving(without_sim, "static"):
        with Client(address, timeout=5.0) as client:
            assert isinstance(client.request(HandshakeInitMessage()), HandshakeMessage)


def test_without_the_sim_extra_the_arm_scene_names_the_install_command(without_sim: Path):
    result = run([str(without_sim / "coupler"), "serve", "--scene", "arm", "--addr", free_tcp_address()],
                 without_sim, 60)
    assert result.returncode != 0
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    assert "pip install 'coupler[sim]'" in lines[0]
