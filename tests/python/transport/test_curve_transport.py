"""CurveZMQ on TCP: demo.server admits only the
clients in its allow-list, and nothing readable crosses the wire."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from coupler.transport.client import Client
from coupler.transport.curve_keys import create_key_pair, load_key_pair, load_public_key
from coupler.wire.errors import Error, TimeoutError
from coupler.wire.messages import HandshakeInitMessage
from coupler.controller.session import Session
from coupler.cli import serve as serve_cli
from peers import coupler_server, democlient, free_tcp_address, run
from tcp_relay import TcpRelay


def serve_arguments(argv: list[str]):
    parser = argparse.ArgumentParser()
    serve_cli.add_arguments(parser)
    return parser.parse_args(argv)

# Names from the static scene's handshake: plain text in an unencrypted frame.
PLAINTEXT_MARKERS = (b"wheel_right", b"wrist_ft")


@dataclass
class Keys:
    server_secret: Path
    server_public: Path
    allow_dir: Path
    client_secret: Path
    client: dict  # Client keywords of an allowed client
    stranger: dict  # Client keywords of a client the server does not know

    def client_flags(self) -> list[str]:
        """Flags of the demo controllers for the allowed client's key files."""
        return ["--curve-server-key", str(self.server_public), "--curve-key", str(self.client_secret)]

    def server_flags(self) -> tuple[str, ...]:
        return ("--curve-secret", str(self.server_secret), "--curve-allow", str(self.allow_dir))


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    allow_dir = tmp_path / "allowed"
    server_public, server_secret = create_key_pair(tmp_path, "server")
    _, client_secret = create_key_pair(allow_dir, "controller")
    _, stranger_secret = create_key_pair(tmp_path, "stranger")
    server_key = load_public_key(tmp_path / "server.key")
    return Keys(
        server_secret=server_secret,
        server_public=server_public,
        allow_dir=allow_dir,
        client_secret=client_secret,
        client={"curve_server_key": server_key, "curve_key_pair": load_key_pair(client_secret)},
        stranger={"curve_server_key": server_key, "curve_key_pair": load_key_pair(stranger_secret)},
    )


@pytest.fixture
def curve_server(keys: Keys) -> Iterator[tuple[str, object]]:
    """A static-scene demo.server with CURVE; yields its address and process."""
    address = free_tcp_address()
    with coupler_server(address, "--scene", "static", *keys.server_flags()) as process:
        yield address, process


def test_an_allowed_client_completes_the_handshake_over_curve(curve_server, keys: Keys) -> None:
    address, _ = curve_server
    with Session(address, timeout=5.0, **keys.client) as session:
        assert session.client.mechanism == "CURVE"
        assert "cart" in session.handshake.objects
        session.step(session.controls())


@pytest.mark.parametrize("client", ["democlient", "demo.client"])
def test_the_demo_controllers_connect_with_curve_key_files(curve_server, keys: Keys, client: str) -> None:
    address, _ = curve_server
    program = [str(democlient())] if client == "democlient" else [sys.executable, "-m", "demo.client"]
    timeout = "5"
    result = run([*program, "--addr", address, "--range", "3", "--timeout", timeout, *keys.client_flags()])
    assert result.returncode == 0, result.stdout
    assert "controls sent: 4" in result.stdout


def test_a_client_not_in_the_allow_list_times_out_and_the_server_logs_it(curve_server, keys: Keys) -> None:
    address, process = curve_server
    with Client(address, timeout=1.0, **keys.stranger) as stranger:
        with pytest.raises(TimeoutError):
            stranger.request(HandshakeInitMessage())
    process.kill()
    process.wait(timeout=10)
    output = process.output()
    stranger_key = keys.stranger["curve_key_pair"][0].decode()
    refusals = [line for line in output.splitlines() if "refused" in line and stranger_key in line]
    assert refusals, output
    assert "127.0.0.1" in refusals[0]


def test_a_plain_client_cannot_reach_a_curve_server(curve_server) -> None:
    address, _ = curve_server
    with Client(address, timeout=1.0) as plain:
        assert plain.mechanism == "NULL"
        with pytest.raises(TimeoutError):
            plain.request(HandshakeInitMessage())


def _session_through_relay(server_address: str, client: str, key_flags: list[str], **client_options) -> bytes:
    """Run a short session through a recording relay with the Python Session or the C++ democlient."""
    with TcpRelay(server_address) as relay:
        if client == "democlient":
            result = run([str(democlient()), "--addr", relay.address, "--range", "2", *key_flags])
            assert result.returncode == 0, result.stdout
        else:
            with Session(relay.address, timeout=5.0, **client_options) as session:
                session.step(session.controls())
        time.sleep(0.1)  # the goodbye reaches the relay
        return relay.recorded()


@pytest.mark.parametrize("client", ["python", "democlient"])
def test_without_curve_the_scene_is_readable_on_the_wire(client: str) -> None:
    address = free_tcp_address()
    with coupler_server(address, "--scene", "static"):
        recorded = _session_through_relay(address, client, [])
    assert all(marker in recorded for marker in PLAINTEXT_MARKERS)


@pytest.mark.parametrize("client", ["python", "democlient"])
def test_with_curve_nothing_of_the_scene_is_readable_on_the_wire(curve_server, keys: Keys, client: str) -> None:
    address, _ = curve_server
    recorded = _session_through_relay(address, client, keys.client_flags(), **keys.client)
    assert len(recorded) > 1000  # the handshake and the steps did pass
    assert not any(marker in recorded for marker in PLAINTEXT_MARKERS)


def test_a_remote_bind_with_curve_gives_no_authentication_warning(keys: Keys) -> None:
    args = serve_arguments(["--addr", "tcp://0.0.0.0:5555", "--allow-remote", *keys.server_flags()])
    options, warning = serve_cli.options_from(args)
    assert warning is None
    assert options.transport.curve_allowed_clients == (keys.client["curve_key_pair"][0],)


def test_a_remote_bind_without_curve_warns() -> None:
    args = serve_arguments(["--addr", "tcp://0.0.0.0:5555", "--allow-remote"])
    _, warning = serve_cli.options_from(args)
    assert "no authentication" in warning


def test_curve_secret_without_allow_list_is_refused(keys: Keys) -> None:
    args = serve_arguments(["--curve-secret", str(keys.server_secret)])
    with pytest.raises(Error, match="--curve-allow"):
        serve_cli.options_from(args)


def test_an_allow_list_without_keys_is_refused(keys: Keys, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    args = serve_arguments(["--curve-secret", str(keys.server_secret), "--curve-allow", str(tmp_path / "empty")])
    with pytest.raises(Error, match="holds no \\*.key file"):
        serve_cli.options_from(args)
