"""Storms of hostile TCP connections: plain ones that connect and close, ones
that send random bytes, and ones that send a ZMTP greeting and then stall.

Raw sockets, no ZeroMQ: what an attacker (or a port scanner) would send.
"""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

PLAIN = "plain"
GARBAGE = "garbage"
STALLED = "stalled"
KINDS = (PLAIN, GARBAGE, STALLED)

# A ZMTP 3.0 greeting of a NULL-mechanism client: signature, version, mechanism, as-server, filler.
GREETING = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31
# Stalled connections held open at once: under the common limit of 1,024 descriptors of this process.
MAX_STALLED_OPEN = 500
CONNECT_TIMEOUT = 2.0


@dataclass
class StormCounts:
    plain: int = 0
    garbage: int = 0
    stalled: int = 0
    refused: int = 0  # connections the server did not accept within CONNECT_TIMEOUT
    seconds: float = 0.0

    @property
    def total(self) -> int:
        return self.plain + self.garbage + self.stalled + self.refused


def host_port(address: str) -> tuple[str, int]:
    """("127.0.0.1", 5555) for "tcp://127.0.0.1:5555"."""
    parts = urlsplit(address)
    if parts.scheme != "tcp" or parts.hostname is None or parts.port is None:
        raise ValueError(f"a connection storm needs a tcp://host:port address, not {address}")
    return parts.hostname, parts.port


def storm(address: str, connections: int, kinds: tuple[str, ...] = KINDS, seed: int = 12,
          progress: Callable[[int], None] = lambda done: None) -> StormCounts:
    """Open `connections` connections to `address`, taking `kinds` in turn; close every one before returning.

    `progress(done)` is called every 500 connections.
    """
    target = host_port(address)
    rng = random.Random(seed)
    counts = StormCounts()
    stalled: list[socket.socket] = []
    started = time.monotonic()
    try:
        for i in range(connections):
            kind = kinds[i % len(kinds)]
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.settimeout(CONNECT_TIMEOUT)
            try:
                sock.connect(target)
                if kind == GARBAGE:
                    sock.sendall(rng.randbytes(rng.randint(16, 512)))
                elif kind == STALLED:
                    sock.sendall(GREETING)
            except OSError:
                counts.refused += 1
                sock.close()
                continue
            if kind == STALLED:
                stalled.append(sock)
                counts.stalled += 1
                if len(stalled) >= MAX_STALLED_OPEN:
                    _close_all(stalled)
            else:
                sock.close()
                setattr(counts, kind, getattr(counts, kind) + 1)
            if (i + 1) % 500 == 0:
                progress(i + 1)
    finally:
        _close_all(stalled)
    counts.seconds = time.monotonic() - started
    return counts


def _close_all(sockets: list[socket.socket]) -> None:
    for sock in sockets:
        sock.close()
    sockets.clear()
