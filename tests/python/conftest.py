"""Fixtures shared by the Python tests: addresses for every transport and
pclick's demo server run as a process of its own."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from peers import click_server, free_tcp_address

# Offscreen rendering in this process (coupler.gym's render modes) without a display: MuJoCo reads this once,
# when a test module first imports it.
os.environ.setdefault("MUJOCO_GL", "egl")

_inproc_names = itertools.count()


@pytest.fixture
def make_address(tmp_path: Path) -> Callable[[str], str]:
    """A factory: make_address("inproc" | "ipc" | "tcp") gives a fresh address of that transport.

    tcp:// is 127.0.0.1 with a port that was free a moment ago.
    inproc:// addresses reach only sockets of the same ZeroMQ context: the C++
    Client and Server share one, pyzmq sockets have their own.
    """
    ipc_names = itertools.count()

    def make(transport: str) -> str:
        if transport == "inproc":
            return f"inproc://test-{next(_inproc_names)}"
        if transport == "ipc":
            # pytest cuts test names in tmp_path to 30 characters, which keeps
            # this under the 107-byte limit on socket paths in the usual temp dir.
            return f"ipc://{tmp_path / f's{next(ipc_names)}.sock'}"
        if transport == "tcp":
            return free_tcp_address()
        raise ValueError(f"unknown transport {transport!r}")

    return make


@pytest.fixture
def pclick_server(make_address: Callable[[str], str]) -> Iterator[Callable[[str], str]]:
    """A factory: pclick_server("ipc" | "tcp") starts pclick's demo server and returns its address.

    Each call returns once the server answers a handshake; every server is
    killed when the test ends, however it ends. Fails when pclick is not
    installed (run scripts/setup), unless COUPLER_ALLOW_NO_PCLICK=1 skips.
    """
    with contextlib.ExitStack() as servers:

        def start(transport: str) -> str:
            address = make_address(transport)
            servers.enter_context(click_server(address))
            return address

        yield start
