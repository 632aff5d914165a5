"""An ipc:// bind replaces nothing but a stale socket, and an abstract socket, which has no permissions, is
served only with CURVE: on the serving socket (C++) and through `coupler serve` alike."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest
import zmq

from coupler.transport.options import TransportOptions
from coupler.transport.server import Server
from coupler.wire.errors import Error
from peers import REPO, server_command


@pytest.mark.parametrize("kind", ["regular file", "folder", "symbolic link"])
def test_a_server_refuses_an_ipc_path_that_is_not_a_socket_and_leaves_it_alone(tmp_path: Path, kind: str):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    path = {"regular file": notes, "folder": tmp_path / "folder", "symbolic link": tmp_path / "link"}[kind]
    if kind == "folder":
        path.mkdir()
    elif kind == "symbolic link":
        path.symlink_to(notes)
    with pytest.raises(Error, match="exists and is not a socket; refusing to replace it"):
        Server(f"ipc://{path}")
    assert notes.read_text() == "keep me"
    assert path.exists() and not path.is_socket()


def test_a_server_replaces_a_stale_socket_no_one_listens_on(tmp_path: Path):
    path = tmp_path / "stale.sock"
    with socket.socket(socket.AF_UNIX) as left_behind:
        left_behind.bind(str(path))  # bound, never listening: what a killed server leaves
    with Server(f"ipc://{path}") as server:
        assert server.endpoint == f"ipc://{path}"


def test_a_server_refuses_an_abstract_socket_without_curve():
    with pytest.raises(Error, match="abstract socket has no file permissions"):
        Server(f"ipc://@coupler-test-{os.getpid()}")


def test_a_server_with_curve_serves_an_abstract_socket():
    public, secret = zmq.curve_keypair()
    client_public, _ = zmq.curve_keypair()
    options = TransportOptions(curve_key_pair=(public, secret), curve_allowed_clients=(client_public,))
    with Server(f"ipc://@coupler-test-{os.getpid()}", options) as server:
        assert server.endpoint.startswith("ipc://@coupler-test-")


def test_coupler_serve_on_a_regular_file_says_so_in_one_line_and_keeps_the_file(tmp_path: Path):
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    result = subprocess.run(server_command(f"ipc://{notes}", "--scene", "static"), cwd=REPO, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode != 0
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "exists and is not a socket" in errors[0], result.stderr
    assert notes.read_text() == "keep me"
