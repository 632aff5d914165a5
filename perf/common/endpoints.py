"""Addresses for benchmark servers: loopback TCP ports and IPC paths in a private directory."""

from __future__ import annotations

import itertools
import socket
from pathlib import Path

TRANSPORTS = ("ipc", "tcp")
# TCP with CurveZMQ encryption and authentication, measured when asked for (--transports); its floor is
# plain TCP's, so a row's ratio to the floor shows what CURVE costs. Click's server has no CURVE.
CURVE_TRANSPORT = "tcp-curve"
TRANSPORT_CHOICES = (*TRANSPORTS, CURVE_TRANSPORT)

_serial = itertools.count()


def free_tcp_address() -> str:
    """A loopback port nothing listens on now (the kernel picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def address_for(transport: str, directory: Path) -> str:
    """A fresh address: every server gets its own, so a slow exit never collides with the next start."""
    if transport in ("tcp", CURVE_TRANSPORT):
        return free_tcp_address()
    if transport == "ipc":
        return f"ipc://{directory / f'perf-{next(_serial)}.sock'}"
    raise ValueError(f"unknown transport '{transport}': use one of {', '.join(TRANSPORT_CHOICES)}")


def floor_transport(transport: str) -> str:
    """The transport of the plain ZeroMQ floor a row is set against."""
    return "tcp" if transport == CURVE_TRANSPORT else transport
