"""A controller outlives a server restart: a real demo.server process is
killed with SIGKILL and started again on the same address."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from coupler.wire.errors import ReconnectedError, SceneChangedError, TimeoutError
from coupler.controller.session import Session
from peers import coupler_server, free_tcp_address

TIMEOUT = 1.0
MARGIN = 0.5


class RestartableServer:
    """demo.server on one address, to be killed and started again."""

    def __init__(self, scene: str = "static") -> None:
        self.address = free_tcp_address()
        self._stack = contextlib.ExitStack()
        self.start(scene)

    def start(self, scene: str = "static") -> None:
        self.process = self._stack.enter_context(coupler_server(self.address, "--scene", scene))

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def close(self) -> None:
        self._stack.close()


@pytest.fixture
def server() -> Iterator[RestartableServer]:
    running = RestartableServer()
    yield running
    running.close()


def test_a_session_whose_server_was_killed_times_out_within_its_timeout(server: RestartableServer) -> None:
    with Session(server.address, timeout=TIMEOUT) as session:
        controls = session.controls()
        session.step(controls)
        server.kill()
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            session.step(controls)
        assert time.monotonic() - started < TIMEOUT + MARGIN


def test_reconnect_resumes_a_session_after_the_server_restarted(server: RestartableServer) -> None:
    with Session(server.address, timeout=TIMEOUT) as session:
        before = session.handshake
        session.step(session.controls())
        server.kill()
        with pytest.raises(TimeoutError):
            session.step(session.controls())
        server.start()
        session.reconnect()
        assert session.handshake == before
        readings = session.step(session.controls())
        assert readings.time > 0


def test_reconnect_refuses_a_server_that_now_serves_another_scene(server: RestartableServer) -> None:
    with Session(server.address, timeout=5.0) as session:
        server.kill()
        server.start("mobile")
        with pytest.raises(SceneChangedError, match="different scene"):
            session.reconnect()
        assert "arm" in session.handshake.objects
        session.reconnect(accept_scene_change=True)
        assert "arm" not in session.handshake.objects
        session.step(session.controls())


def _restart_after_timeout(server: RestartableServer) -> threading.Thread:
    """Start the server again once the pending request has timed out: back during a reconnect attempt.

    (A server back within the timeout gets the queued request through
    ZeroMQ's own reconnection, and answers it.)
    """

    def restart() -> None:
        time.sleep(TIMEOUT + 0.3)
        server.start()

    thread = threading.Thread(target=restart)
    thread.start()
    return thread


def test_with_reconnect_attempts_a_sensor_request_is_sent_again_after_a_restart(server: RestartableServer) -> None:
    with Session(server.address, timeout=TIMEOUT, reconnect_attempts=10) as session:
        server.kill()
        restart = _restart_after_timeout(server)
        try:
            readings = session.sensors()
        finally:
            restart.join()
        assert readings.time == 0


def test_with_reconnect_attempts_a_control_is_not_sent_again_and_the_session_goes_on(
    server: RestartableServer,
) -> None:
    with Session(server.address, timeout=TIMEOUT, reconnect_attempts=10) as session:
        controls = session.controls()
        session.step(controls)
        server.kill()
        restart = _restart_after_timeout(server)
        try:
            with pytest.raises(ReconnectedError, match="not sent again"):
                session.step(controls)
        finally:
            restart.join()
        # The restarted server never saw the control: its clock has not moved.
        assert session.sensors().time == 0
        assert session.step(controls).time > 0


def test_with_reconnect_attempts_and_no_server_the_session_gives_up_in_bounded_time(
    server: RestartableServer,
) -> None:
    timeout = TIMEOUT / 2  # waited out three times over: the bound is what is checked, not its size
    with Session(server.address, timeout=timeout, reconnect_attempts=2) as session:
        server.kill()
        started = time.monotonic()
        with pytest.raises(TimeoutError, match="2 reconnect attempts"):
            session.sensors()
        assert time.monotonic() - started < 3 * timeout + MARGIN
