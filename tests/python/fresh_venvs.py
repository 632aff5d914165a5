"""Fresh virtual environments outside the repository, and programs run from them with nothing of the
repository's environment leaking in: what the install tests (tests/python/install/) share."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from coupler.serve.serve_process import ServeProcess

# Building the package compiles the C++ library: several minutes on a busy machine.
BUILD_TIMEOUT = 1800.0
INSTALL_TIMEOUT = 600.0
# What would build C++ if an install tried to: none of it may be reachable from a PATH made by no_compilers().
COMPILERS = ("cc", "c++", "gcc", "g++", "clang", "clang++", "cmake", "ninja", "make", "ld")


def no_compilers(root: Path) -> Path:
    """A directory under `root` holding symlinks to the programs an install of wheels needs (python) and
    nothing else: with a venv's bin directory, a whole PATH on which no compiler is reachable."""
    tools = root / "no-compilers"
    tools.mkdir()
    for name in ("python", "python3"):
        (tools / name).symlink_to(Path(sys.executable).resolve())  # the interpreter behind any venv
    return tools


def clean_environment(bin_dir: Path | None = None, only: Path | None = None) -> dict[str, str]:
    """The caller's environment without what would let the repository leak in; with `bin_dir`, that of a
    shell where the venv of `bin_dir` is activated; with `only` too, PATH is those two directories alone."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "CMAKE_PREFIX_PATH")}
    if bin_dir is not None:
        environment["VIRTUAL_ENV"] = str(bin_dir.parent)
        rest = str(only) if only is not None else environment.get("PATH", "")
        environment["PATH"] = os.pathsep.join([str(bin_dir), rest])
    return environment


def reachable(program: str, environment: dict[str, str]) -> str | None:
    """Where `program` is found on the PATH of `environment`, or None."""
    return shutil.which(program, path=environment["PATH"])


def compiler_cache(checkout: Path) -> dict[str, str]:
    """What makes CMake's builds of `checkout` compile through ccache, when it is installed, with paths taken
    relative to the checkout and the compiler called by CMake's default name, c++ (where a pip build would
    take Python's, often g++), as scripts/setup's builds do (ccache keys an object on both): a file
    scripts/setup compiled is found in the cache instead of being compiled again. ccache hands back the
    compiler's own output for the same input, so what a build makes is unchanged; only minutes are saved."""
    ccache = shutil.which("ccache")
    if ccache is None:
        return {}
    return {"CMAKE_C_COMPILER_LAUNCHER": ccache, "CMAKE_CXX_COMPILER_LAUNCHER": ccache,
            "CCACHE_BASEDIR": str(checkout), "CXX": os.environ.get("CXX", "c++")}


def run(command: list[str], cwd: Path, timeout: float, bin_dir: Path | None = None,
        only: Path | None = None, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `command` to completion in the clean environment (of the venv of `bin_dir`, with PATH that and
    `only`; with the variables of `extra` added); output in .stdout."""
    return subprocess.run(command, cwd=cwd, env={**clean_environment(bin_dir, only), **(extra or {})},
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)


def fresh_venv(root: Path) -> Path:
    """A new venv at root/venv with pip and nothing else; its bin directory."""
    venv.create(root / "venv", with_pip=True)
    return root / "venv" / "bin"


def serving(command: list[str], address: str, bin_dir: Path, only: Path | None = None) -> ServeProcess:
    """The server `command` (from the venv of `bin_dir`, with PATH that and `only`), as a context that returns
    once it serves on `address` and stops it however the block ends."""
    return ServeProcess(command=command, address=address, cwd=bin_dir.parent.parent,
                        env=clean_environment(bin_dir, only))
