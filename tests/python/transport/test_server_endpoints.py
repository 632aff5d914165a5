"""What a running `coupler serve` does with its endpoint: it keeps an ipc:// path it holds,
drops connections that stall in their handshake, and takes the open files it is allowed."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path


from coupler.serve.serve_process import ServeProcess
from coupler.transport.client import Client
from coupler.wire.errors import Error
from coupler.wire.messages import SensorMessage, SensorRequestMessage
from peers import REPO, coupler_server, free_tcp_address, server_command

# The signature, version 3.0 and the NULL mechanism of a ZMTP 3 greeting, then padding: all
# a peer sends before it stalls.
ZMTP_GREETING = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31


def answered(address: str, timeout: float) -> bool:
    try:
        with Client(address, timeout=timeout) as client:
            return isinstance(client.request(SensorRequestMessage()), SensorMessage)
    except Error:
        return False


def test_a_second_server_on_a_live_ipc_path_is_refused_and_the_first_stays_reachable(tmp_path: Path) -> None:
    address = f"ipc://{tmp_path / 'sim.sock'}"
    with coupler_server(address, "--scene", "static"):
        second = subprocess.run(server_command(address, "--scene", "static"), cwd=REPO, capture_output=True,
                                text=True, timeout=60)
        assert second.returncode == 1, second.stdout + second.stderr
        assert "address in use by a running server" in second.stderr
        assert (tmp_path / "sim.sock").exists()
        assert answered(address, timeout=2.0)


def _short_of_files(soft: int, hard: int, address: str, *flags: str) -> ServeProcess:
    """demo.server allowed `soft` open files, and `hard` at most (prlimit sets them, then runs it in its place)."""
    return coupler_server(address, *flags, under=["prlimit", f"--nofile={soft}:{hard}"])


def _open_files_soft_limit(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise AssertionError("no open-file limit in /proc")


def test_the_server_raises_its_open_file_limit_to_the_hard_limit() -> None:
    address = free_tcp_address()
    with _short_of_files(256, 1024, address, "--scene", "static") as server:
        assert _open_files_soft_limit(server.pid) == 1024


STALLED_CONNECTIONS = 300
SERVER_OPEN_FILES = 128  # fewer than the stalled connections: without the handshake timeout they hold every one
NEWCOMER_BOUND = 15.0  # seconds; ZeroMQ's own handshake timeout is 30 s


def test_a_new_controller_gets_in_past_hundreds_of_stalled_handshakes_on_a_server_short_of_files() -> None:
    address = free_tcp_address()
    host, port = address.removeprefix("tcp://").rsplit(":", 1)
    stalled: list[socket.socket] = []
    with _short_of_files(SERVER_OPEN_FILES, SERVER_OPEN_FILES, address, "--scene", "static",
                         "--handshake-timeout", "0.5") as server:
        try:
            for _ in range(STALLED_CONNECTIONS):
                connection = socket.socket()
                connection.settimeout(1.0)
                try:
                    connection.connect((host, int(port)))
                    connection.sendall(ZMTP_GREETING)
                except OSError:
                    pass  # the backlog is full: the connection stays pending, as an attacker's would
                stalled.append(connection)
            started = time.monotonic()
            while not answered(address, timeout=1.0):
                assert server.poll() is None, "the server died"
                assert time.monotonic() - started < NEWCOMER_BOUND, "no answer for a new controller"
            assert server.poll() is None
        finally:
            for connection in stalled:
                connection.close()
