"""The server side of the protocol flow, over an `ArraySimulation`.

`SimulationServer.handle` is the whole protocol: one request in, at most one
answer out. A Control is checked and read into the simulation's control
arrays by the C++ `ControlLayout` and served by `handle_control_values`,
however it arrives (a native request, or a message given to `handle`): a
lone controller's is applied, stepped and read in C++, as the hot path
serves one (`coupler.serve.native_control_step`); one the layout refuses
is answered by `refuse_control`. The loops that feed it
requests decide when the simulation steps (`coupler.serve.lockstep_loop`,
`coupler.serve.free_run_loop`).
Requests come from peers (connections): the server lets one controller drive
at a time, or with `controllers` > 1 several, each its own robots, stepping
in lockstep (`coupler.serve.controller_sessions` has the rules); anyone may read.
Whatever a request holds, the server keeps running and the simulation keeps
its state: a bad request gets an ErrorMessage and changes nothing.

Each part has its own class: `SimulationRun` (running, stepping, long
Controls), `ControllerAdmission` (who drives), `RequestGuard` (every request
answered), and one answer per request kind (`ControlAnswer`,
`HandshakeAnswer`, `ResetAnswer`, `WorldsDriving`); the server composes them.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from coupler.serve.control_answer import ControlAnswer
from coupler.serve.controller_admission import ControllerAdmission
from coupler.serve.controller_sessions import DEFAULT_LEASE, ControllerSessions
from coupler.serve.handshake_answer import HandshakeAnswer
from coupler.serve.held import HELD, Held
from coupler.serve.long_control import LongControl
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.request_guard import RequestGuard
from coupler.serve.reset_answer import ResetAnswer
from coupler.serve.server_stats import ServerStats
from coupler.serve.simulation import Simulation
from coupler.serve.simulation_run import SimulationRun
from coupler.serve.worlds_driving import WorldsDriving
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
    ResetMessage,
    SensorRequestMessage,
)

__all__ = ["HELD", "Held", "SimulationServer"]

log = logging.getLogger(__name__)


class SimulationServer:
    """Answers controllers' requests from a simulation.

    Each Control is checked against the handshake and applied through the
    simulation's arrays (`ArraySimulation`; other simulations may only be
    read, reset and handshaken with), through its C++ parts where it has
    them (`coupler.serve.hot_path_parts`). With
    `lockstep` (Click semantics) it is then followed by exactly `steps`
    simulation steps (one unless the coupler `steps` extension asks for
    more) before the new state is sent back; without, the caller steps the
    simulation on its own clock and a Control only changes what is applied.

    Every request names its `peer`. One controller drives at a time (see
    `coupler.serve.controller_sessions`); `session_timeout` is its lease in
    seconds (0 never lapses), measured by `clock` (monotonic seconds). With
    `controllers` > 1 (lockstep only) that many drive disjoint robots: a
    Control is applied and answered with HELD, and the loop steps once
    `round_complete()` (`step_round()`), answering them all.
    """

    def __init__(self, simulation: Simulation, lockstep: bool = True, controllers: int = 1,
                 session_timeout: float = DEFAULT_LEASE, clock: Callable[[], float] = time.monotonic) -> None:
        if controllers > 1 and not lockstep:
            raise ValueError("several controllers step together only in lockstep")
        if session_timeout < 0:
            raise ValueError(f"session timeout must be 0 (never lapse) or positive, got {session_timeout}")
        self.simulation = simulation
        self.lockstep = lockstep
        self.sessions = ControllerSessions(controllers, session_timeout or None, clock)
        # Several controllers: Controls wait for each other and claim robots.
        self.shared = controllers > 1
        self.stats = ServerStats()
        # Log every request and answer at INFO level (the responder logs them as it serves them).
        self.trace = False
        # Peers trigger refusals and goodbyes as often as they like: their log lines are bounded.
        peer_log = RateLimitedLog(log)
        self.simulation_run = SimulationRun(simulation, lockstep, self.stats)
        self.admission = ControllerAdmission(self.sessions, self.simulation_run, self.stats, peer_log)
        self.guard = RequestGuard(self.stats, peer_log)
        self.control_answer = ControlAnswer(self.admission, self.guard, self.shared)
        self.handshake_answer = HandshakeAnswer(simulation.handshake(), self.admission, self.shared)
        self.reset_answer = ResetAnswer(self.admission, self.shared)
        self.worlds_driving = WorldsDriving(self.admission, self.guard, self.shared)
        # The native path's calls, bound once: they are looked up on every request.
        self.handle_control_values = self.control_answer.values
        self.refuse_control = self.control_answer.refusal
        self.busy_refusal = self.control_answer.busy_refusal
        self.handle_driving = self.worlds_driving.answer
        self.peer_left = self.admission.peer_left
        self.lapse_leases = self.admission.lapse_leases
        self.take_round = self.control_answer.take_round
        self.steps_per_control = self.simulation_run.steps_per_control
        self.round_complete = self.sessions.round_complete
        # Set when a controller ends its session with an ErrorMessage.
        self.session_ended: threading.Event = self.admission.session_ended

    @property
    def handshake(self) -> HandshakeMessage:
        return self.handshake_answer.handshake

    @property
    def session_active(self) -> bool:
        """True while a controller holds the simulation."""
        return bool(self.sessions.active)

    @property
    def running(self) -> bool:
        """False while the simulation waits for the first Control after a handshake, a reset or a change of driver."""
        return self.simulation_run.running

    @property
    def starts(self) -> int:
        """How many times a Control started the simulation: a paced loop restarts its clock then."""
        return self.simulation_run.starts

    @property
    def fresh_control(self) -> bool:
        """True while the state the simulation holds was applied by a Control and not stepped yet."""
        return self.simulation_run.fresh_control

    @property
    def chunk_long_controls(self) -> bool:
        """Set by a loop that steps Controls of more than LONG_CONTROL_STEPS steps in chunks (`long_control`)."""
        return self.simulation_run.chunk_long_controls

    @chunk_long_controls.setter
    def chunk_long_controls(self, value: bool) -> None:
        self.simulation_run.chunk_long_controls = value

    @property
    def long_control(self) -> LongControl | None:
        """The Control whose steps the loop takes in chunks, until it answers it and clears this."""
        return self.simulation_run.long_control

    @long_control.setter
    def long_control(self, value: LongControl | None) -> None:
        self.simulation_run.long_control = value

    def handle(self, message: Message, peer: bytes = b"") -> Message | Held | None:
        """Return the answer to one request from `peer`: None when none is due (Error), HELD when it waits for a step."""
        if isinstance(message, ControlMessage):
            return self.control_answer.message(message, peer)
        return self.guard.answer(type(message).__name__, lambda: self._dispatch(message, peer))

    def step_round(self) -> tuple[list[bytes], int, list[Any]]:
        """Take the step the waiting Controls asked for; return their peers, the steps taken and the requests to
        answer (those the loop attached to `sessions.rounds`)."""
        peers, steps, requests = self.sessions.take_round()
        return peers, self.control_answer.take_round(steps, peers), requests

    def _dispatch(self, message: Message, peer: bytes) -> Message | Held | None:
        if isinstance(message, (HandshakeInitMessage, ResetMessage)):
            self.simulation_run.refuse_while_stepping(peer)
        if isinstance(message, SensorRequestMessage):
            # Anyone may read; reading never renews a lease (a read-only monitor must not keep a controller out).
            self.stats.sensor_requests += 1
            return self.simulation.sensors()
        if isinstance(message, HandshakeInitMessage):
            return self.handshake_answer.answer(message, peer)
        if isinstance(message, ResetMessage):
            return self.reset_answer.answer(message, peer)
        if isinstance(message, ErrorMessage):
            self.admission.goodbye(message, peer)
            return None
        raise ProtocolError(
            f"unexpected message: a {type(message).__name__} is sent by servers, not to them",
            ErrorCode.UNEXPECTED_MESSAGE,
        )
