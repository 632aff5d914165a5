"""Against Click's demo server (pclick 0.5.15), which announces no coupler extension, coupler's
controllers use plain Click v1 only: no goodbye (which kills that server), no steps above one."""

import sys

import pytest

from coupler.controller.session import Session
from coupler.transport.client import Client
from coupler.wire.errors import ExtensionNotSupportedError
from coupler.wire.messages import HandshakeInitMessage, HandshakeMessage
from peers import click_server, democlient, free_tcp_address, run

RUNS = 10


def _still_serving(address: str) -> bool:
    with Client(address, timeout=5.0) as client:
        return isinstance(client.request(HandshakeInitMessage()), HandshakeMessage)


def test_cpp_democlient_runs_ten_times_in_a_row_against_one_click_server():
    address = free_tcp_address()
    with click_server(address) as server:
        for attempt in range(RUNS):
            result = run([str(democlient()), "--addr", address, "--range", "10"])
            assert result.returncode == 0, f"run {attempt + 1}: {result.stdout}"
        assert server.poll() is None
        assert _still_serving(address)


def test_python_demo_client_runs_ten_times_in_a_row_against_one_click_server():
    address = free_tcp_address()
    with click_server(address) as server:
        for attempt in range(RUNS):
            result = run([sys.executable, "-m", "demo.client", "--addr", address, "--range", "10"])
            assert result.returncode == 0, f"run {attempt + 1}: {result.stdout}"
        assert server.poll() is None
        assert _still_serving(address)


def test_asking_a_click_server_for_ten_steps_per_control_raises_and_the_session_goes_on():
    address = free_tcp_address()
    with click_server(address):
        with Session(address, timeout=5.0) as session:
            assert session.handshake.server is None
            controls = session.controls()
            controls.steps = 10
            with pytest.raises(ExtensionNotSupportedError, match="'steps'"):
                session.step(controls)
            controls.steps = 0
            assert session.step(controls).message is not None
