"""Random bytes on raw TCP connections (port scanners, fuzzers) cannot flood `coupler serve`'s log."""

from __future__ import annotations

import random
import socket

from coupler.wire.messages import SensorMessage, SensorRequestMessage
from coupler.transport.client import Client
from peers import coupler_server, free_tcp_address

CONNECTIONS = 2_000
# 2,000 such connections wrote 2.5 MB before their lines were bounded (about 9 lines of 140 bytes each).
MAX_LOG_BYTES = 20_000


def test_two_thousand_garbage_connections_write_under_20_kb_of_log(tmp_path):
    address = free_tcp_address()
    host, port = address.removeprefix("tcp://").rsplit(":", 1)
    log = tmp_path / "server.log"
    # The whole output goes to a file as it comes (the pipe is drained): a flood shows as size, not as a blocked server.
    with coupler_server(address, "--scene", "static", log_path=log) as server:
        rng = random.Random(6)
        for _ in range(CONNECTIONS):
            with socket.create_connection((host, int(port)), timeout=5.0) as garbage:
                garbage.sendall(rng.randbytes(rng.randint(16, 512)))
        with Client(address, timeout=5.0) as reader:  # still serving
            assert isinstance(reader.request(SensorRequestMessage()), SensorMessage)
        code = server.close()
    out = log.read_bytes()
    assert code == 0, out[-2000:]
    assert len(out) < MAX_LOG_BYTES, out[-2000:]
