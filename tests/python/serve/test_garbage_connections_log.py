"""Random bytes on raw TCP connections (port scanners, fuzzers) cannot flood `coupler serve`'s log."""

from __future__ import annotations

import random
import socket
import subprocess

from coupler.wire.messages import SensorMessage, SensorRequestMessage
from coupler.transport.client import Client
from peers import REPO, free_tcp_address, server_command, wait_until_serving

CONNECTIONS = 2_000
# 2,000 such connections wrote 2.5 MB before their lines were bounded (about 9 lines of 140 bytes each).
MAX_LOG_BYTES = 20_000


def test_two_thousand_garbage_connections_write_under_20_kb_of_log(tmp_path):
    address = free_tcp_address()
    host, port = address.removeprefix("tcp://").rsplit(":", 1)
    log = tmp_path / "server.log"
    with open(log, "wb") as output:  # a file, not a pipe: a flood must show as size, not as a blocked server
        process = subprocess.Popen(server_command(address, "--scene", "static"), cwd=REPO, stdout=output,
                                   stderr=subprocess.STDOUT)
    try:
        wait_until_serving(address, process)
        rng = random.Random(6)
        for _ in range(CONNECTIONS):
            with socket.create_connection((host, int(port)), timeout=5.0) as garbage:
                garbage.sendall(rng.randbytes(rng.randint(16, 512)))
        with Client(address, timeout=5.0) as reader:  # still serving
            assert isinstance(reader.request(SensorRequestMessage()), SensorMessage)
        process.terminate()
        process.wait(timeout=10)
    finally:
        process.kill()
    out = log.read_bytes()
    assert process.returncode == 0, out[-2000:]
    assert len(out) < MAX_LOG_BYTES, out[-2000:]
