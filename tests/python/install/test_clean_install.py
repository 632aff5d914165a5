"""The wheel route of the install page (docs/install.md, **From a wheel**) followed verbatim where no compiler
is: its `scripts/wheel` on this, the build machine (a no-op when scripts/setup built the wheel from the
sources as they are; minutes on a busy machine otherwise: deselect with `-m "not install"`), then its
`pip install` commands in fresh virtual environments outside the repository (no PYTHONPATH), whose PATH is
the venv's bin directory and a directory holding only `python`, so that no compiler, CMake or make is
reachable. pip installs binary wheels only and asks no index (PIP_ONLY_BINARY, PIP_NO_INDEX): coupler from
dist/, its dependencies from build/wheelhouse, which scripts/setup fills (PIP_FIND_LINKS).

The commands are followed twice: all of them (with the `sim` extra: MuJoCo scenes), and those without `sim`
(a controller-only install). There the installed package serves and describes scenes, drives a Session
beside pyzmq's and protobuf's own libraries, names one version everywhere and ships the schema.
"""

from __future__ import annotations

import re
import subprocess
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from coupler.transport.client import Client
from coupler.wire.messages import HandshakeInitMessage, HandshakeMessage
from doc_pages import DOCS, block_after, shell_commands
from fresh_venvs import BUILD_TIMEOUT, COMPILERS, INSTALL_TIMEOUT, clean_environment, fresh_venv, no_compilers, \
    reachable, run, serving
from peers import REPO, free_tcp_address

pytestmark = pytest.mark.install

INSTALL_PAGE = DOCS / "install.md"
WHEELHOUSE = REPO / "build" / "wheelhouse"
RUN_TIMEOUT = 60.0
STEPS = 1000


def _wheel_route() -> tuple[str, list[str]]:
    """The wheel route's command that builds the wheel, and those that install it."""
    commands = [text for _, text in shell_commands(block_after(INSTALL_PAGE, "**From a wheel**", "bash"))]
    assert commands and commands[0] == "scripts/wheel", f"install.md's wheel route starts with {commands[:1]}"
    installs = commands[1:]
    assert installs and all(c.startswith("pip install ") for c in installs), installs
    return commands[0], installs


@pytest.fixture(scope="module")
def wheel() -> Path:
    """The wheel users install, as the install page builds it: scripts/wheel's, in dist/."""
    build, _ = _wheel_route()
    result = subprocess.run([str(REPO / build)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=BUILD_TIMEOUT)
    assert result.returncode == 0, result.stdout[-4000:]
    return REPO / result.stdout.strip().splitlines()[-1]  # scripts/wheel prints it relative to the root


class Installed:
    """A fresh venv where the install page's pip commands ran (all, or those without `sim`), and the PATH it
    runs with."""

    def __init__(self, wheel: Path, root: Path, with_sim: bool):
        assert (WHEELHOUSE / ".stamp").is_file(), f"no {WHEELHOUSE.relative_to(REPO)}: run scripts/setup"
        self.bin = fresh_venv(root)
        self.only = no_compilers(root)
        environment = {**clean_environment(self.bin, self.only), "PIP_ONLY_BINARY": ":all:", "PIP_NO_INDEX": "1",
                       "PIP_FIND_LINKS": f"{wheel.parent} {WHEELHOUSE}", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        _, installs = _wheel_route()
        followed = [command for command in installs if with_sim or "[sim]" not in command]
        started = time.monotonic()
        for command in followed:
            # From the repository's root, where the page's dist/ is.
            result = subprocess.run(["/bin/bash", "-c", command], cwd=REPO, env=environment, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, timeout=INSTALL_TIMEOUT)
            assert result.returncode == 0, f"{command}\n{result.stdout[-4000:]}"
        self.install_seconds = time.monotonic() - started

    def run(self, command: list[str], cwd: Path, timeout: float = RUN_TIMEOUT) -> subprocess.CompletedProcess:
        return run(command, cwd, timeout, self.bin, self.only)

    def python(self, code: str, cwd: Path) -> subprocess.CompletedProcess:
        return self.run([str(self.bin / "python"), "-c", code], cwd)


@pytest.fixture(scope="module")
def with_sim(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return Installed(wheel, tmp_path_factory.mktemp("with-sim"), with_sim=True)


@pytest.fixture(scope="module")
def without_sim(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return Installed(wheel, tmp_path_factory.mktemp("without-sim"), with_sim=False)


def _serving(installed: Installed, scene: str) -> Iterator[str]:
    address = free_tcp_address()
    with serving([str(installed.bin / "coupler"), "serve", "--scene", scene, "--addr", address], address,
                 installed.bin, installed.only):
        yield address


@pytest.fixture
def arm_server(with_sim: Installed) -> Iterator[str]:
    yield from _serving(with_sim, "arm")


def test_no_compiler_is_reachable_where_the_wheel_is_installed(with_sim: Installed):
    environment = clean_environment(with_sim.bin, with_sim.only)
    assert {program: reachable(program, environment) for program in COMPILERS} == dict.fromkeys(COMPILERS)


def test_the_installs_are_quick(with_sim: Installed, without_sim: Installed):
    # Wheels only, unpacked: 30 s is the target on a busy two-core machine; a build would take minutes.
    print(f"installed in {with_sim.install_seconds:.1f} s (sim), {without_sim.install_seconds:.1f} s (without)")
    assert with_sim.install_seconds < 60.0


def test_the_wheel_is_manylinux_with_zeromq_and_protobuf_bundled_under_their_own_names(wheel: Path):
    shown = subprocess.run([str(REPO / ".venv-tools" / "bin" / "auditwheel"), "show", str(wheel)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=RUN_TIMEOUT)
    assert shown.returncode == 0, shown.stdout
    assert re.search(r'consistent with\s+the following platform tag:\s+"manylinux_2_\d+_x86_64"', shown.stdout), \
        shown.stdout
    with zipfile.ZipFile(wheel) as contents:
        bundled = [name for name in contents.namelist() if name.startswith("coupler.libs/")]
    for library in ("libzmq", "libprotobuf"):
        # auditwheel's hash in the name keeps them apart from pyzmq's and any system copy.
        assert any(re.fullmatch(rf"coupler\.libs/{library}-[0-9a-f]{{8}}\.so[.\d]*", name) for name in bundled), \
            bundled


def test_the_installed_package_is_not_the_repositorys(with_sim: Installed):
    result = with_sim.python("import coupler; print(coupler.__file__)", with_sim.bin)
    assert result.returncode == 0, result.stdout
    assert str(REPO) not in result.stdout


def test_coupler_serve_serves_the_arm_scene(arm_server: str):
    with Client(arm_server, timeout=5.0) as client:
        answer = client.request(HandshakeInitMessage())
    assert isinstance(answer, HandshakeMessage)
    assert "arm" in answer.objects


def test_coupler_info_prints_the_arm_scenes_ranges(with_sim: Installed, arm_server: str):
    result = with_sim.run([str(with_sim.bin / "coupler"), "info", "--addr", arm_server], with_sim.bin)
    assert result.returncode == 0, result.stdout
    assert "-3.0718 .. -0.0698 rad" in result.stdout


def test_a_session_steps_beside_pyzmq_and_protobufs_own_libraries(with_sim: Installed, arm_server: str,
                                                                 tmp_path: Path):
    # pyzmq's libzmq and protobuf's runtime are loaded and used first; coupler's bundled copies load after them.
    (tmp_path / "controller.py").write_text(f"""
import zmq
from google.protobuf import descriptor_pb2

context = zmq.Context()
context.socket(zmq.REQ).close()
assert descriptor_pb2.FileDescriptorProto.FromString(
    descriptor_pb2.FileDescriptorProto(name="x.proto").SerializeToString()).name == "x.proto"

from coupler import Session

with Session({arm_server!r}, timeout=5.0, reset=True) as session:
    controls = session.controls()
    for step in range({STEPS}):
        controls.set("arm", "joint2", 0.2)
        readings = session.step(controls)
print(f"{{readings.time:.3f}}")
context.term()
""")
    result = with_sim.run([str(with_sim.bin / "python"), "controller.py"], tmp_path)
    assert result.returncode == 0, result.stdout
    # The arm steps 2 ms per Control.
    assert result.stdout.strip().splitlines()[-1] == f"{STEPS * 0.002:.3f}", result.stdout


def test_every_version_the_installed_package_names_is_cmakes(with_sim: Installed, arm_server: str):
    cmake = re.search(r"^project\(coupler VERSION ([0-9.]+)", (REPO / "CMakeLists.txt").read_text(), re.MULTILINE)
    assert cmake is not None
    printed = with_sim.run([str(with_sim.bin / "coupler"), "--version"], with_sim.bin)
    module = with_sim.python("import coupler, importlib.metadata\nfrom coupler import _native\n"
                             "print(coupler.__version__, importlib.metadata.version('coupler'), _native.version())",
                             with_sim.bin)
    with Client(arm_server, timeout=5.0) as client:
        served = client.request(HandshakeInitMessage()).server
    assert printed.stdout.strip() == f"coupler {cmake.group(1)}", printed.stdout
    assert module.stdout.split() == [cmake.group(1)] * 3, module.stdout
    assert (served.name, served.version) == ("coupler", cmake.group(1))


def test_the_wheel_ships_coupler_proto(with_sim: Installed):
    result = with_sim.python("from coupler.wire.schema import proto_path; print(proto_path())", with_sim.bin)
    assert result.returncode == 0, result.stdout
    shipped = Path(result.stdout.strip())
    assert shipped.is_relative_to(with_sim.bin.parent), shipped
    assert shipped.read_bytes() == (REPO / "proto" / "coupler.proto").read_bytes()


def test_without_the_sim_extra_the_static_scene_is_served(without_sim: Installed):
    for address in _serving(without_sim, "static"):
        with Client(address, timeout=5.0) as client:
            assert isinstance(client.request(HandshakeInitMessage()), HandshakeMessage)


def test_without_the_sim_extra_the_arm_scene_names_the_install_command(without_sim: Installed):
    result = without_sim.run([str(without_sim.bin / "coupler"), "serve", "--scene", "arm", "--addr",
                              free_tcp_address()], without_sim.bin)
    assert result.returncode != 0
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    assert "pip install 'coupler[sim]'" in lines[0]
