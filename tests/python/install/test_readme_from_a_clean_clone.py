"""README.md followed as written, from a clean clone: the C++ install it points to and its Python quick start.

The repository's committed tree is cloned into a temporary directory (uncommitted changes are not in the
clone: the test follows what a clone gets). There:

- the C++ install's commands (the bash block under "## The C++ library" of docs/install.md, which the
  README links) run verbatim but for the prefix: every `/usr/local` in them (where `cmake --install` puts the
  library and where the consumer project finds it) becomes a directory in the temporary one. Its
  `apt-get install` line runs verbatim as root (as on the clean Debian machine CI is), answering apt's
  question as a reader would; as another user, where apt cannot install, every package it names must be
  installed (dpkg-query says so), and a missing one is named. A project of the README's CMake lines and its
  C++ controller is then built against that prefix, found through CMAKE_PREFIX_PATH alone;
- the Python install's commands (the bash block under **Python**) run verbatim in the clone, in a fresh
  venv: `pip install .` gets its build environment from PyPI, as any user's does;
- `coupler serve` and `coupler info` as the README shows them run from that venv, and so do the README's
  Python controller and the C++ controller built above, against the served arm scene.

The README's address, `coupler serve`'s default tcp://127.0.0.1:5555, may be taken on a shared machine: the
server is given a free port with `--addr`, and the command and controllers that connect to it get that
address in place of the shown one, the only change made to them. The clone, the C++ build and the venv are
made once per session; the C++ library is built twice (for the prefix and for the package), minutes on a
busy machine when every file is compiled (through ccache, when it is installed, the files scripts/setup compiled
are found in its cache): deselect with `-m "not install"`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from doc_pages import DOCS, README, SHELL_LANGUAGES, SHOWN_ADDRESS, Block, block_after, blocks, shell_commands, \
    shown_controllers
from fresh_venvs import BUILD_TIMEOUT, compiler_cache, fresh_venv, run, serving
from peers import REPO, free_tcp_address

pytestmark = pytest.mark.install

INSTALL_PAGE = DOCS / "install.md"
# Where the install page installs the library; the test installs it into a temporary prefix instead.
SHOWN_PREFIX = "/usr/local"
CLONE_TIMEOUT = 120.0
RUN_TIMEOUT = 60.0
# apt-get fetching and installing what is missing, on a clean machine.
APT_TIMEOUT = 900.0
# What both controllers print after their 250 ramp steps and the one closing the gripper, of 2 ms each.
PRINTED = re.compile(r"t = 0\.502 s, joint2 = (-?\d+\.\d+) rad")
# The control both controllers drive, as `coupler info` lists it among the arm scene's controls.
JOINT2_CONTROL = re.compile(r"^arm\s+joint2\s+joint2\s+ANGLE\s+rad\s+-1\.7628 \.\. 1\.7628 rad$", re.MULTILINE)


def _the_one(found: list[Block], what: str) -> Block:
    assert len(found) == 1, f"README.md shows {len(found)} {what}, not one"
    return found[0]


def _words(command: str, programs: set[str], page: Path = README) -> list[str]:
    words = shlex.split(command)
    assert words[0] in programs, f"{page.name} shows {command!r}: this test follows only {sorted(programs)} here"
    return words


def _at(text: str, address: str) -> str:
    """`text` connecting to `address` instead of the shown one."""
    assert SHOWN_ADDRESS in text, f"README.md's {text!r} does not name {SHOWN_ADDRESS}"
    return text.replace(SHOWN_ADDRESS, address)


def _shown_command(start: str) -> str:
    shown = [text for block in blocks(README) if block.language in SHELL_LANGUAGES
             for _, text in shell_commands(block) if text.startswith(start)]
    assert len(shown) == 1, f"README.md shows {len(shown)} commands starting with {start!r}, not one"
    return shown[0]


def _cpp_install() -> list[list[str]]:
    """The words of each command of the C++ install: apt-get's, cmake's and the consumer it builds, the ones
    this test follows."""
    block = block_after(INSTALL_PAGE, "## The C++ library", "bash")
    return [_words(text, {"apt-get", "cmake", "build/consumer/consumer"}, INSTALL_PAGE)
            for _, text in shell_commands(block)]


def _is_apt_get(words: list[str]) -> bool:
    return words[0] == "apt-get"


def _with_prefix(words: list[str], prefix: Path) -> list[str]:
    """`words` with the shown prefix replaced by `prefix`."""
    return [word.replace(SHOWN_PREFIX, str(prefix)) for word in words]


@pytest.fixture(scope="session")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh clone of the repository."""
    path = tmp_path_factory.mktemp("clone") / "coupler"
    result = run(["git", "clone", "--quiet", str(REPO), str(path)], path.parent, CLONE_TIMEOUT)
    assert result.returncode == 0, result.stdout
    return path


@pytest.fixture(scope="session")
def cpp_prefix(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The prefix the C++ install's commands, run in the clone, installed the library into."""
    prefix = tmp_path_factory.mktemp("prefix")
    followed = [words for words in _cpp_install() if not _is_apt_get(words)]
    for words in followed:
        if "--install" in words:
            # Without a prefix given on the command line, following it would install into the system.
            assert _with_prefix(words, prefix) != words, f"install.md's {shlex.join(words)!r} names no {SHOWN_PREFIX}"
    assert any("--install" in words for words in followed), "install.md's C++ install has no cmake --install"
    for words in followed:
        result = run(_with_prefix(words, prefix), clone, BUILD_TIMEOUT, extra=compiler_cache(clone))
        assert result.returncode == 0, f"{shlex.join(words)}\n{result.stdout[-4000:]}"
    return prefix


@pytest.fixture(scope="session")
def address() -> str:
    """Where this session's servers serve and its controllers connect, instead of the shown address."""
    return free_tcp_address()


@pytest.fixture(scope="session")
def app_build(cpp_prefix: Path, address: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build directory of a project made of README.md's CMake lines and its C++ controller (connecting
    to `address`), configured against the prefix with CMAKE_PREFIX_PATH alone and built."""
    app = tmp_path_factory.mktemp("app")
    lines = _the_one([b for b in blocks(README) if b.language == "cmake"], "cmake blocks").text
    # What the README's lines leave to the reader: the project and its program's target.
    (app / "CMakeLists.txt").write_text(
        f"cmake_minimum_required(VERSION 3.18)\nproject(app LANGUAGES CXX)\nadd_executable(app main.cpp)\n{lines}\n")
    (app / "main.cpp").write_text(_at(_the_one(shown_controllers(README, "cpp"), "C++ controllers").text, address))
    build = app / "build"
    for command in (["cmake", "-S", str(app), "-B", str(build), f"-DCMAKE_PREFIX_PATH={cpp_prefix}"],
                    ["cmake", "--build", str(build)]):
        result = run(command, app, BUILD_TIMEOUT)
        assert result.returncode == 0, f"{shlex.join(command)}\n{result.stdout[-4000:]}"
    return build


@pytest.fixture(scope="session")
def quick_start(clone: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin directory of a fresh venv where the Python install's commands ran in the clone."""
    bin_dir = fresh_venv(tmp_path_factory.mktemp("quick-start"))
    for _, command in shell_commands(block_after(README, "**Python**", "bash")):
        words = _words(command, {"pip"})
        result = run([str(bin_dir / words[0]), *words[1:]], clone, BUILD_TIMEOUT, bin_dir,
                     extra=compiler_cache(clone))
        assert result.returncode == 0, f"{command}\n{result.stdout[-4000:]}"
    return bin_dir


@contextlib.contextmanager
def _arm_served(bin_dir: Path, address: str) -> Iterator[None]:
    """README.md's `coupler serve` serving at `address` until the block ends."""
    words = _words(_shown_command("coupler serve"), {"coupler"})
    # The shown command serves the default address; an --addr after it wins over one it may show.
    with serving([str(bin_dir / "coupler"), *words[1:], "--addr", address], address, bin_dir):
        yield


def _printed_joint2(result: subprocess.CompletedProcess) -> str:
    """The joint2 angle in the line the controller printed last, which must be its reading after the ramp."""
    assert result.returncode == 0, result.stdout
    last = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    matched = PRINTED.fullmatch(last)
    assert matched is not None, f"expected a line like {PRINTED.pattern!r}, got:\n{result.stdout}"
    return matched.group(1)


@pytest.fixture(scope="session")
def cpp_printed(app_build: Path, quick_start: Path, address: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The joint2 angle README.md's C++ controller printed, run against a served arm scene."""
    with _arm_served(quick_start, address):
        return _printed_joint2(run([str(app_build / "app")], tmp_path_factory.mktemp("cpp-run"), RUN_TIMEOUT))


@pytest.fixture(scope="session")
def python_printed(quick_start: Path, address: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The joint2 angle README.md's Python controller printed, run by the venv's Python (outside the clone)
    against a served arm scene."""
    here = tmp_path_factory.mktemp("python-run")
    (here / "controller.py").write_text(_at(_the_one(shown_controllers(README, "python"), "Python controllers").text,
                                            address))
    with _arm_served(quick_start, address):
        return _printed_joint2(run([str(quick_start / "python"), "controller.py"], here, RUN_TIMEOUT, quick_start))


def _apt_get_install() -> list[str]:
    """The words of the C++ install's one apt-get line."""
    lines = [words for words in _cpp_install() if _is_apt_get(words)]
    assert len(lines) == 1, f"install.md's C++ install has {len(lines)} apt-get lines, not one"
    return lines[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="apt-get installs as root only")
def test_the_cpp_installs_apt_get_line_runs_verbatim_as_root(tmp_path) -> None:
    words = _apt_get_install()
    # A reader answers apt's question, if it asks one (it does not when every package is there already).
    result = subprocess.run(words, cwd=tmp_path, input="Y\n", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=APT_TIMEOUT)
    assert result.returncode == 0, f"{shlex.join(words)}\n{result.stdout[-4000:]}"


@pytest.mark.skipif(os.geteuid() == 0, reason="root runs install.md's apt-get line itself")
def test_every_package_the_cpp_install_names_is_installed() -> None:
    words = _apt_get_install()
    named = [word for word in words[words.index("install") + 1:] if not word.startswith("-")]
    assert named, "install.md's C++ install names no Debian package"
    missing = []
    for package in named:
        status = subprocess.run(["dpkg-query", "--show", "--showformat=${db:Status-Abbrev}", package],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=RUN_TIMEOUT)
        if not status.stdout.startswith("ii"):
            missing.append(package)
    assert missing == [], f"not installed, though install.md's C++ install names them: {' '.join(missing)}"


def test_the_readmes_cmake_lines_find_coupler_in_the_installed_prefix(app_build: Path, cpp_prefix: Path) -> None:
    found = re.search(r"^coupler_DIR:PATH=(.*)$", (app_build / "CMakeCache.txt").read_text(), re.MULTILINE)
    assert found is not None and Path(found.group(1)).is_relative_to(cpp_prefix), found


def test_the_readmes_cpp_controller_ramps_the_arm_and_prints_its_reading(cpp_printed: str) -> None:
    # Ramped towards 0.4 rad, the joint lags the target by a few hundredths.
    assert 0.3 < float(cpp_printed) <= 0.4


def test_the_readmes_python_controller_ramps_the_arm_and_prints_its_reading(python_printed: str) -> None:
    assert 0.3 < float(python_printed) <= 0.4


def test_the_cpp_and_python_controllers_print_the_same_angle(cpp_printed: str, python_printed: str) -> None:
    # Python prints three decimals, C++ six significant digits.
    assert abs(float(cpp_printed) - float(python_printed)) <= 0.0005 + 1e-9, (cpp_printed, python_printed)


def test_coupler_info_as_shown_describes_the_served_arm(quick_start: Path, address: str) -> None:
    words = _words(_at(_shown_command("coupler info"), address), {"coupler"})
    with _arm_served(quick_start, address):
        result = run([str(quick_start / "coupler"), *words[1:]], quick_start, RUN_TIMEOUT, quick_start)
    assert result.returncode == 0, result.stdout
    assert JOINT2_CONTROL.search(result.stdout), result.stdout
