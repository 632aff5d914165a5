"""Faults on the controller side against a running demo.server: controllers
killed anywhere, many clients at once, and the server stopped by a signal."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from coupler.serve.serve_process import ServeProcess
from coupler.transport.client import Client
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from peers import REPO, address_for, coupler_server, free_tcp_address

STATIC_STEP = 0.001
ARM_ZEROS = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)})
GOODBYE = ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving")
LEASE = 0.5


def read_time(address: str) -> float:
    """The simulated time, read as anyone may read it."""
    with Client(address, timeout=5.0) as reader:
        state = reader.request(SensorRequestMessage())
    assert isinstance(state, SensorMessage), state
    return state.simulated_time


def take_over(address: str, within: float = 5.0) -> Client:
    """A client that handshakes again and again until the server lets it drive; it must leave within `within` s."""
    client = Client(address, timeout=5.0)
    deadline = time.monotonic() + within
    while True:
        answer = client.request(HandshakeInitMessage())
        if isinstance(answer, HandshakeMessage):
            return client
        assert answer.code == ErrorCode.SERVER_BUSY, answer
        assert time.monotonic() < deadline, "the simulation was never freed"
        time.sleep(0.05)


def stall(address: str, *flags: str) -> subprocess.Popen:
    """Start tests/python/stalled_controller.py; return once it has stalled."""
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve().parents[1] / "stalled_controller.py"), address, *flags],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    line = process.stdout.readline()
    assert line.strip() == "stalled", line + process.stdout.read()
    return process


@pytest.fixture(scope="module")
def leased_server(tmp_path_factory) -> Iterator[tuple[str, ServeProcess]]:
    """One static-scene server with a short lease, shared by the kill tests (each frees it when done)."""
    address = address_for("ipc", tmp_path_factory.mktemp("faults"))
    with coupler_server(address, "--scene", "static", "--session-timeout", str(LEASE)) as server:
        yield address, server


@pytest.mark.parametrize(
    ("flags", "steps_taken"),
    [(["--then", "handshake"], 0), (["--controls", "3", "--then", "control"], 4), (["--controls", "3", "--then", "idle"], 3)],
    ids=["mid-handshake", "between-send-and-receive", "between-requests"],
)
def test_a_controller_killed_anywhere_leaves_the_server_and_its_state_to_the_next(leased_server, flags, steps_taken):
    address, server = leased_server
    before = read_time(address)
    controller = stall(address, *flags)
    controller.kill()  # SIGKILL: no goodbye, no closing of its socket
    controller.wait(timeout=10)
    after = read_time(address)
    assert after == pytest.approx(before + steps_taken * STATIC_STEP)

    with take_over(address) as successor:
        assert successor.request(SensorRequestMessage()).simulated_time == pytest.approx(after)
        assert successor.request(ARM_ZEROS).simulated_time == pytest.approx(after + STATIC_STEP)
        successor.send(GOODBYE)
    assert server.poll() is None


def test_a_controller_killed_while_a_paced_answer_is_held_leaves_the_server_and_its_state_to_the_next(tmp_path):
    address = address_for("ipc", tmp_path)
    # Real time with a 1 s step: the answer to the first Control is held for a second.
    flags = ["--scene", "static", "--realtime", "--step", "1", "--session-timeout", str(LEASE)]
    with coupler_server(address, *flags) as server:
        controller = stall(address, "--then", "control")
        controller.kill()
        controller.wait(timeout=10)
        assert read_time(address) == pytest.approx(1.0)  # answered after the held step
        with take_over(address) as successor:
            assert successor.request(ARM_ZEROS).simulated_time == pytest.approx(2.0)
        assert server.poll() is None


def test_a_killed_controller_of_two_holds_the_other_back_only_until_its_lease_lapses(tmp_path):
    address = address_for("ipc", tmp_path)
    flags = ["--scene", "static", "--controllers", "2", "--session-timeout", str(LEASE)]
    with coupler_server(address, *flags) as server:
        controller = stall(address, "--then", "idle")  # handshaken: the other's steps wait for it
        with Client(address, timeout=5.0) as survivor:
            survivor.request(HandshakeInitMessage())
            controller.kill()
            controller.wait(timeout=10)
            sent = time.monotonic()
            assert survivor.request(ARM_ZEROS).simulated_time == pytest.approx(STATIC_STEP)
            assert time.monotonic() - sent < LEASE + 2.0
            assert survivor.request(ARM_ZEROS).simulated_time == pytest.approx(2 * STATIC_STEP)
        assert server.poll() is None


# ---- many clients at once

OTHERS = 7
CONTROLS = 200
OTHER_REQUESTS = 60


def test_eight_clients_at_once_each_get_every_answer_and_only_the_controller_steps():
    address = free_tcp_address()
    with coupler_server(address, "--scene", "static") as server:
        controller = Client(address, timeout=5.0)
        assert isinstance(controller.request(HandshakeInitMessage()), HandshakeMessage)
        answers: dict[int, list[Message]] = {k: [] for k in range(OTHERS)}
        failures: list[BaseException] = []
        start = threading.Barrier(OTHERS + 1)

        def intrude(k: int) -> None:
            kinds = [HandshakeInitMessage(), ARM_ZEROS, SensorRequestMessage()]
            try:
                with Client(address, timeout=5.0) as client:
                    start.wait()
                    for i in range(OTHER_REQUESTS):
                        answers[k].append(client.request(kinds[(i + k) % 3]))
            except BaseException as error:  # noqa: BLE001 - reported by the test below
                failures.append(error)

        threads = [threading.Thread(target=intrude, args=(k,)) for k in range(OTHERS)]
        for thread in threads:
            thread.start()
        start.wait()
        times = [controller.request(ARM_ZEROS).simulated_time for _ in range(CONTROLS)]
        for thread in threads:
            thread.join(timeout=60)
        controller.send(GOODBYE)
        controller.close()
        assert server.poll() is None
    assert not failures, failures
    assert times == pytest.approx([(k + 1) * STATIC_STEP for k in range(CONTROLS)])
    for k, received in answers.items():
        assert len(received) == OTHER_REQUESTS
        for i, answer in enumerate(received):
            if (i + k) % 3 == 2:
                assert isinstance(answer, SensorMessage)
            else:
                assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SERVER_BUSY, answer


# ---- stopping by signal


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_server_cleanly_after_answering_the_pending_request(signum, tmp_path):
    socket_file = tmp_path / "coupler.sock"
    address = f"ipc://{socket_file}"
    with coupler_server(address, "--scene", "static", "--realtime", "--step", "0.5") as server:
        with Client(address, timeout=5.0) as controller:
            controller.send(ARM_ZEROS)  # its answer is held until 0.5 s of wall time have passed
            time.sleep(0.1)
            server.send_signal(signum)
            answer = controller.receive()
        code = server.wait(timeout=10)
        out = server.output()
    assert isinstance(answer, SensorMessage) and answer.simulated_time == pytest.approx(0.5)
    assert code == 0, out
    assert "simulated time:        0.5000 s" in out
    assert "controls received:     1" in out
    assert not socket_file.exists()


@pytest.mark.parametrize("transport", ["ipc", "tcp"])
def test_a_killed_controller_frees_the_simulation_at_once_without_waiting_for_its_lease(transport, tmp_path):
    address = address_for(transport, tmp_path)
    # A lease far longer than the test: only the closed connection can free the simulation.
    with coupler_server(address, "--scene", "static", "--session-timeout", "600") as server:
        controller = stall(address, "--controls", "3", "--then", "idle")
        controller.kill()
        controller.wait(timeout=10)
        with take_over(address, within=5.0) as successor:
            assert successor.request(ARM_ZEROS).simulated_time == pytest.approx(4 * STATIC_STEP)
            successor.send(GOODBYE)
        assert server.poll() is None
