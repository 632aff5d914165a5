"""A newcomer whose request to drive is read before the goodbye that frees the place is admitted, not refused
as busy: the goodbye comes on another connection, and ZeroMQ orders nothing across connections."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from coupler.controller.session import Session
from coupler.scenes.static import StaticScene
from coupler.serve.busy_grace import GRACE, MAX_HELD_BYTES, BusyGrace
from coupler.serve.controller_sessions import ControllerSessions
from coupler.serve.free_run_loop import FreeRunLoop
from coupler.serve.lockstep_loop import LockstepLoop
from coupler.serve.native_responder import NativeResponder
from coupler.serve.run_clock import RunClock
from coupler.serve.simulation_server import SimulationServer
from coupler.transport.client import Client
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    MessageType,
    ObjectControl,
    SensorMessage,
)

GOODBYE = ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving")
ARM_CONTROL = ControlMessage(objects={"arm": ObjectControl([0.0] * 7)})


@contextlib.contextmanager
def serving(address: str, loop_kind: str = "lockstep", grace: float = GRACE) -> Iterator[SimulationServer]:
    """A server of the static scene on `address`, its loop (`loop_kind`: "lockstep", "free-run") in a
    thread, holding newcomers back `grace` seconds."""
    free = loop_kind == "free-run"
    # No lease lapses, however slow the machine.
    sim = SimulationServer(StaticScene(), lockstep=not free, session_timeout=0)
    stop = threading.Event()
    with NativeResponder(address, sim) as responder:
        responder.busy_grace.grace = grace
        serve = (FreeRunLoop(responder, RunClock(1.0)) if free
                 else LockstepLoop(responder))
        loop = threading.Thread(target=serve.run, args=(stop, 0.05))
        loop.start()
        try:
            yield sim
        finally:
            stop.set()
            loop.join(timeout=10)
    assert not loop.is_alive()


@pytest.mark.parametrize("loop_kind", ["lockstep", "free-run"])
def test_a_newcomer_read_before_the_goodbye_that_frees_the_place_is_admitted(make_address, loop_kind):
    address = make_address("ipc")
    # A grace far longer than the goodbye's lag: the test shows the rule, whatever the machine's load.
    with serving(address, loop_kind, grace=1.0) as sim, \
            Client(address, timeout=5.0) as leaving, Client(address, timeout=5.0) as newcomer:
        assert isinstance(leaving.request(HandshakeInitMessage()), HandshakeMessage)
        assert isinstance(leaving.request(ARM_CONTROL), SensorMessage)
        newcomer.send(HandshakeInitMessage())
        time.sleep(0.05)  # the server reads the newcomer's request well before the goodbye is even sent
        leaving.send(GOODBYE)
        assert isinstance(newcomer.receive(), HandshakeMessage)
        assert isinstance(newcomer.request(ARM_CONTROL), SensorMessage)
    assert sim.stats.refused_busy == 0
    assert sim.stats.sessions_ended == 1


def test_a_newcomer_is_still_refused_as_busy_once_the_grace_has_passed(make_address):
    address = make_address("ipc")
    with serving(address) as sim, Client(address, timeout=5.0) as holder, Client(address, timeout=5.0) as newcomer:
        assert isinstance(holder.request(HandshakeInitMessage()), HandshakeMessage)
        assert isinstance(holder.request(ARM_CONTROL), SensorMessage)
        started = time.monotonic()
        newcomer.send(HandshakeInitMessage())
        # The holder is served meanwhile: nothing waits for the newcomer's request.
        assert isinstance(holder.request(ARM_CONTROL), SensorMessage)
        refused = newcomer.receive()
        waited = time.monotonic() - started
        assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.SERVER_BUSY
        assert refused.text == sim.sessions.busy_text()
        assert GRACE <= waited < GRACE + 0.5  # the margin is the loaded machine's, not the server's
    assert sim.stats.refused_busy == 1


def test_sessions_opened_and_closed_one_after_another_are_never_refused_as_busy(make_address):
    address = make_address("ipc")
    with serving(address) as sim:
        for _ in range(50):
            with Session(address, timeout=5.0) as session:
                session.step(session.controls())
    # Each left by its goodbye or, read first, its closed connection.
    assert (sim.stats.refused_busy, sim.stats.controls, sim.stats.sessions_ended + sim.stats.peers_left) == (0, 50, 50)


@dataclass
class Request:
    """What the grace reads of a request."""

    peer: bytes
    type: int = MessageType.HANDSHAKE_INIT
    size: int = 10


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def held_place() -> tuple[BusyGrace, ControllerSessions, Clock]:
    """A grace over sessions whose one place `b"holder"` holds."""
    clock = Clock()
    sessions = ControllerSessions(lease=None, clock=clock)
    sessions.admit(b"holder")
    return BusyGrace(sessions, grace=0.02, clock=clock), sessions, clock


def test_a_held_request_is_released_as_soon_as_the_place_frees():
    grace, sessions, _ = held_place()
    request = Request(b"newcomer")
    assert grace.arrived(request) is None
    assert grace.release() is None
    sessions.leave(b"holder")
    assert grace.release() is request


def test_a_held_request_is_released_once_the_holders_closed_connection_is_reported():
    grace, sessions, _ = held_place()
    closed: list[bytes] = []
    grace.look_for_leavers = lambda: [sessions.leave(peer) for peer in closed]
    request = Request(b"newcomer")
    assert grace.arrived(request) is None
    assert grace.release() is None
    closed.append(b"holder")
    assert grace.release() is request


def test_a_held_request_is_released_when_its_grace_ends_though_the_place_is_still_held():
    grace, _, clock = held_place()
    request = Request(b"newcomer")
    assert grace.arrived(request) is None
    clock.now = 0.019
    assert grace.release() is None and grace.release_in() == pytest.approx(0.001)
    clock.now = 0.02
    assert grace.release() is request and len(grace) == 0


def test_a_peer_that_had_its_grace_is_refused_at_once_when_it_asks_again():
    grace, _, clock = held_place()
    first = Request(b"newcomer")
    assert grace.arrived(first) is None
    clock.now = 0.02
    assert grace.release() is first
    again = Request(b"newcomer")
    assert grace.arrived(again) is again
    other = Request(b"another")
    assert grace.arrived(other) is None


def test_reads_and_the_holders_requests_are_never_held():
    grace, _, _ = held_place()
    read = Request(b"reader", type=MessageType.SENSOR_REQUEST)
    control = Request(b"holder", type=MessageType.CONTROL)
    assert grace.arrived(read) is read and grace.arrived(control) is control


def test_a_peers_later_requests_wait_behind_its_held_one():
    grace, sessions, _ = held_place()
    asked = Request(b"newcomer")
    read = Request(b"newcomer", type=MessageType.SENSOR_REQUEST)
    assert grace.arrived(asked) is None and grace.arrived(read) is None
    sessions.leave(b"holder")
    assert (grace.release(), grace.release(), grace.release()) == (asked, read, None)


def test_requests_beyond_the_bytes_held_are_served_at_once():
    grace, _, _ = held_place()
    assert grace.arrived(Request(b"first", size=MAX_HELD_BYTES - 5)) is None
    beyond = Request(b"second", size=10)
    assert grace.arrived(beyond) is beyond
