"""The server side of the protocol flow, over any `Simulation`.

`SimulationServer.handle` is the whole protocol: one request in, at most one
answer out; `handle_control_values` is its fast path for a Control that the
native server path has already checked and read into arrays. The loops that
feed it requests decide when the simulation steps (`coupler.lockstep_loop`,
`coupler.free_run_loop`).
Whatever a request holds, the server keeps running and the simulation keeps
its state: a bad request gets an ErrorMessage and changes nothing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

import numpy as np

from coupler import _native
from coupler.control_check import check_control
from coupler.errors import ProtocolError
from coupler.messages import (
    PROTOCOL_VERSION,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    Message,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.simulation import ArraySimulation, Simulation

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass
class ServerStats:
    """What a run did, for the summary printed on exit."""

    requests: int = 0
    handshakes: int = 0
    controls: int = 0
    steps: int = 0
    steps_without_control: int = 0
    sensor_requests: int = 0
    resets: int = 0
    errors_sent: int = 0
    sessions_ended: int = 0


class SimulationServer:
    """Answers controllers' requests from a simulation.

    Each Control is checked against the handshake and applied. With
    `lockstep` (Click semantics) it is then followed by exactly `steps`
    simulation steps (one unless the coupler `steps` extension asks for
    more) before the new state is sent back; without, the caller steps the
    simulation on its own clock and a Control only changes what is applied.
    """

    def __init__(self, simulation: Simulation, lockstep: bool = True) -> None:
        self.simulation = simulation
        self.lockstep = lockstep
        self.stats = ServerStats()
        # Built once: the handshake is constant for a run.
        self._handshake: HandshakeMessage = simulation.handshake()
        self.session_active = False
        self.fresh_control = False
        # The simulation waits for the first Control after a handshake or reset.
        self.running = False
        # Set when a controller ends its session with an ErrorMessage.
        self.session_ended = threading.Event()
        # Log every request and answer at INFO level.
        self.trace = False

    @property
    def handshake(self) -> HandshakeMessage:
        return self._handshake

    def handle(self, message: Message) -> Message | None:
        """Return the answer to one request, or None when none is due (Error)."""
        answer = self._guarded(type(message).__name__, lambda: self._dispatch(message))
        if self.trace:
            log.info("received %r", message)
            log.info("answered %r", answer)
        return answer

    def handle_control_values(
        self, controls: _native.ControlLayout, steps: int, sensors_out: np.ndarray
    ) -> float | ErrorMessage:
        """Apply a Control the native path has checked and read into `controls`, step, and read the new state.

        As handle() does for a ControlMessage, but through arrays: `controls`
        holds the arrays of `simulation.flat.controls` (the simulation is an
        ArraySimulation) and `steps` the Control's steps field; the state is
        written to `sensors_out` by `simulation.sensor_values`. Returns its
        simulated time, or the ErrorMessage to send when the simulation failed.
        """
        simulation = cast(ArraySimulation, self.simulation)  # the native path serves only ArraySimulations

        def control() -> float:
            simulation.apply_values(controls.values, controls.values_set, controls.events_set, controls.events_on)
            self._controlled(steps)
            return simulation.sensor_values(sensors_out)

        return self._guarded("ControlMessage", control)

    def _guarded(self, kind: str, handle: Callable[[], T]) -> T | ErrorMessage:
        """Run a request's handling, counting it; a refusal or a failure becomes the ErrorMessage to send."""
        self.stats.requests += 1
        try:
            answer: T | ErrorMessage = handle()
        except ProtocolError as error:
            log.warning("refused %s: %s", kind, error)
            answer = ErrorMessage(code=error.code, text=str(error))
        except Exception as error:  # a failing simulation must not take the server down
            log.exception("internal error while handling %s", kind)
            answer = ErrorMessage(code=ErrorCode.INTERNAL_ERROR, text=f"internal error: {error}")
        if isinstance(answer, ErrorMessage):
            self.stats.errors_sent += 1
        return answer

    def _dispatch(self, message: Message) -> Message | None:
        if isinstance(message, ControlMessage):
            return self._control(message)
        if isinstance(message, SensorRequestMessage):
            self.stats.sensor_requests += 1
            return self.simulation.sensors()
        if isinstance(message, HandshakeInitMessage):
            return self._handshake_init(message)
        if isinstance(message, ResetMessage):
            self.simulation.reset()
            self.running = False
            self.stats.resets += 1
            return ResetMessage()
        if isinstance(message, ErrorMessage):
            log.info("controller ended its session: error %s: %s", message.code, message.text)
            self.session_active = False
            self.running = False
            self.stats.sessions_ended += 1
            self.session_ended.set()
            return None
        raise ProtocolError(
            f"unexpected message: a {type(message).__name__} is sent by servers, not to them",
            ErrorCode.UNEXPECTED_MESSAGE,
        )

    def _handshake_init(self, message: HandshakeInitMessage) -> Message:
        if message.version != PROTOCOL_VERSION:
            return ErrorMessage(
                code=ErrorCode.VERSION_NOT_SUPPORTED,
                text=f"protocol version {message.version} is not supported; this server speaks {PROTOCOL_VERSION}",
            )
        self.stats.handshakes += 1
        self.session_active = True
        self.running = False
        return self._handshake

    def _control(self, control: ControlMessage) -> SensorMessage:
        check_control(self._handshake, control)
        self.simulation.apply(control)
        self._controlled(control.steps)
        return self.simulation.sensors()

    def _controlled(self, steps: int) -> None:
        """What follows every applied Control: counting, starting, and in lockstep the steps."""
        self.stats.controls += 1
        self.running = True
        self.fresh_control = True
        taken = self.steps_per_control(steps)
        if taken:
            self.step(taken)

    def steps_per_control(self, steps: int) -> int:
        """How many steps a Control with this `steps` field takes: none unless in lockstep."""
        return max(steps, 1) if self.lockstep else 0

    def step(self, steps: int = 1) -> None:
        """Advance the simulation, counting steps taken without a fresh Control."""
        self.simulation.step(steps)
        self.stats.steps += steps
        if not self.fresh_control:
            self.stats.steps_without_control += steps
        self.fresh_control = False
