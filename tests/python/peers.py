"""Programs the tests talk to: coupler's demo server, Click's demo server and
client, and the C++ democlient, each run as a process of its own."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from coupler.serve.serve_process import STOP_WITH_OWNER, ServeProcess
from coupler.wire.messages import HandshakeInitMessage

REPO = Path(__file__).resolve().parents[2]


def _required_path(variable: str, default: Path, what: str) -> Path:
    path = Path(os.environ.get(variable, default))
    if not path.exists():
        raise RuntimeError(f"{what} not found at {path}: run scripts/setup (or set {variable})")
    return path


def democlient() -> Path:
    return _required_path("COUPLER_DEMOCLIENT", REPO / "build/cpp/bin/democlient", "the C++ democlient")


def pclick_python() -> Path:
    """The Python of the pclick virtual environment; a missing one fails the test.

    COUPLER_ALLOW_NO_PCLICK=1 turns that failure into a skip, for machines
    that cannot install pclick.
    """
    try:
        return _required_path(
            "COUPLER_PCLICK_PYTHON", REPO / ".venv-pclick/bin/python", "the pclick virtual environment"
        )
    except RuntimeError as missing:
        if os.environ.get("COUPLER_ALLOW_NO_PCLICK") == "1":
            pytest.skip(f"{missing} (skipped: COUPLER_ALLOW_NO_PCLICK=1)")
        raise


def free_tcp_address() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def address_for(transport: str, tmp_path: Path) -> str:
    """A fresh tcp:// (free loopback port) or ipc:// (socket file in tmp_path) address."""
    if transport == "tcp":
        return free_tcp_address()
    if transport == "ipc":
        return f"ipc://{tmp_path / 'coupler.sock'}"
    raise ValueError(f"no address for transport {transport!r} that another process can reach")


def server_command(address: str, *flags: str) -> list[str]:
    """demo.server with `flags`."""
    return [sys.executable, "-m", "demo.server", "--addr", address, *flags]


def coupler_server(address: str, *flags: str, log_path: Path | None = None, under: Sequence[str] = ()) -> ServeProcess:
    """demo.server with `flags`, as a context that returns once it serves and stops it on exit; its whole
    output also goes to `log_path` when given. `under`: a program that runs it in its place (such as prlimit with
    its arguments)."""
    return ServeProcess(command=[*under, *server_command(address, *flags, STOP_WITH_OWNER)], address=address, cwd=REPO,
                        log_path=log_path)


def click_server(address: str) -> ServeProcess:
    """Click's demo server, as a context that returns once it answers a handshake (it prints no serving line,
    and answers nothing else) and stops it on exit."""
    return ServeProcess(command=[str(pclick_python()), "-m", "pclick.demo.server", "--addr", address],
                        address=address, probe=HandshakeInitMessage(), cwd=REPO)


def run(command: list[str], timeout: float = 120.0) -> subprocess.CompletedProcess:
    """Run a client program to completion; its output is in .stdout (stderr merged)."""
    return subprocess.run(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
