"""The server side of the protocol flow, over an `ArraySimulation`.

`SimulationServer.handle` is the whole protocol: one request in, at most one
answer out. A Control is checked and read into the simulation's control
arrays by the C++ `ControlLayout` and served by `handle_control_values`,
however it arrives (a native request, or a message given to `handle`); one
the layout refuses is answered by `refuse_control`. The loops that feed it
requests decide when the simulation steps (`coupler.serve.lockstep_loop`,
`coupler.serve.free_run_loop`).
Requests come from peers (connections): the server lets one controller drive
at a time, or with `controllers` > 1 several, each its own robots, stepping
in lockstep (`coupler.serve.controller_sessions` has the rules); anyone may read.
Whatever a request holds, the server keeps running and the simulation keeps
its state: a bad request gets an ErrorMessage and changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar, cast

import numpy as np

from coupler import _native
from coupler.serve.controller_sessions import DEFAULT_LEASE, Controller, ControllerSessions
from coupler.serve.long_control import LONG_CONTROL_STEPS, LongControl
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.wire.codec import encode
from coupler.wire.errors import ProtocolError
from coupler.wire.peer_text import shown
from coupler.wire.messages import (
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
from coupler.serve.server_info import with_server_info
from coupler.serve.simulation import ArraySimulation, Simulation, StateSimulation

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
    refused_busy: int = 0  # requests to drive refused with SERVER_BUSY
    peers_left: int = 0  # controllers whose connection was reported closed


class Held:
    """The answer to a Control that waits for the other controllers' Controls of the same step."""

    def __repr__(self) -> str:
        return "HELD"


HELD = Held()


class SimulationServer:
    """Answers controllers' requests from a simulation.

    Each Control is checked against the handshake and applied through the
    simulation's arrays (`ArraySimulation`; other simulations may only be
    read, reset and handshaken with). With
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
        self._active = self.sessions.active  # the same dict, looked up on every Control
        self._clock = clock
        # Several controllers: Controls wait for each other and claim robots.
        self.shared = controllers > 1
        # Object names in the order of the native control arrays (array simulations only).
        self._control_objects: list[str] = (
            [o.name for o in simulation.flat.controls.objects] if isinstance(simulation, ArraySimulation) else []
        )
        self.stats = ServerStats()
        # Built once: the handshake is constant for a run.
        self._handshake: HandshakeMessage = with_server_info(simulation.handshake())
        self.fresh_control = False
        # The simulation waits for the first Control after a handshake or reset.
        self.running = False
        # How many times a Control started the simulation: a paced loop restarts its clock then.
        self.starts = 0
        # Set when a controller ends its session with an ErrorMessage.
        self.session_ended = threading.Event()
        # Log every request and answer at INFO level (the responder logs them as it serves them).
        self.trace = False
        # Peers trigger refusals and goodbyes as often as they like: their log lines are bounded.
        self._peer_log = RateLimitedLog(log)
        # Set by a loop that steps long Controls in chunks (coupler.serve.long_control): a Control asking for more
        # than LONG_CONTROL_STEPS steps is then answered HELD, its steps left to take in `long_control`.
        self.chunk_long_controls = False
        self.long_control: LongControl | None = None

    @property
    def handshake(self) -> HandshakeMessage:
        return self._handshake

    @property
    def session_active(self) -> bool:
        """True while a controller holds the simulation."""
        return bool(self.sessions.active)

    def handle(self, message: Message, peer: bytes = b"") -> Message | Held | None:
        """Return the answer to one request from `peer`: None when none is due (Error), HELD when it waits for a step."""
        if isinstance(message, ControlMessage):
            return self._control_message(message, peer)
        return self._guarded(type(message).__name__, lambda: self._dispatch(message, peer))

    def refuse_control(self, error: ProtocolError, peer: bytes = b"") -> ErrorMessage:
        """The answer to a Control of `peer` that the control layout refused with `error`, as a request to drive.

        A peer that may not drive is told so first (SERVER_BUSY, or that its
        long Control is still being stepped); a newcomer refused takes no place.
        """

        def refuse() -> None:
            if self.long_control is not None:
                self._refuse_while_stepping(peer)
            controller = self.sessions.admit(peer)
            with self._refusal_frees_place(controller):
                raise error

        return cast(ErrorMessage, self._guarded("ControlMessage", refuse))

    def busy_refusal(self, peer: bytes) -> ErrorMessage | None:
        """The SERVER_BUSY answer for a request to drive from `peer` when no place is free for it, else None.

        Asked before a Control's body is read: a peer that may not drive must
        cost the server almost nothing, whatever shape its Control has.
        """
        stepping = self.long_control is not None and peer not in self.long_control.peers
        if self.sessions.may_admit(peer) and not stepping:
            return None

        def refuse() -> None:
            if stepping:
                self._refuse_while_stepping(peer)
            raise ProtocolError(self.sessions.busy_text(), ErrorCode.SERVER_BUSY)

        return cast(ErrorMessage, self._guarded("ControlMessage", refuse))

    def handle_control_values(
        self, controls: _native.ControlLayout, steps: int, sensors_out: np.ndarray, peer: bytes = b""
    ) -> float | ErrorMessage | Held:
        """Apply a Control the native path has checked and read into `controls`, step, and read the new state.

        As handle() does for a ControlMessage, but through arrays: `controls`
        holds the arrays of `simulation.flat.controls` (the simulation is an
        ArraySimulation) and `steps` the Control's steps field; the state is
        written to `sensors_out` by `simulation.sensor_values`. Returns its
        simulated time, the ErrorMessage to send when `peer` may not drive or
        the simulation failed, or HELD when the step waits for other controllers.
        """
        simulation = cast(ArraySimulation, self.simulation)  # the native path serves only ArraySimulations

        def control() -> float | Held:
            if self.long_control is not None:
                self._refuse_while_stepping(peer)
            controller = self._active.get(peer)
            if controller is None or self.shared:
                return self._admitted_control_values(controls, steps, sensors_out, peer)
            # The path of every Control of a lone controller: one lookup, and its lease renewed.
            controller.seen = self._clock()
            simulation.apply_values(controls.values, controls.values_set, controls.events_set, controls.events_on)
            if self._controlled(steps, peer):
                return HELD
            return simulation.sensor_values(sensors_out)

        return self._guarded("ControlMessage", control)

    def handle_driving(self, peer: bytes, steps: int, drive: Callable[[], T]) -> T | ErrorMessage:
        """Run `drive`, a coupler extension's request to drive from `peer` that steps `steps` times by itself.

        Admitted, refused and counted as a Control is: `drive` raises
        ProtocolError before it changes anything for a request it refuses;
        that, SERVER_BUSY, or a failure comes back as the ErrorMessage to send.
        """

        def control() -> T:
            controller = self.sessions.admit(peer)
            with self._refusal_frees_place(controller):
                if self.shared:
                    raise ProtocolError("server busy: a request for every world drives the whole scene, which "
                                        "several controllers share", ErrorCode.SERVER_BUSY)
                result = drive()
            self._accept(controller)
            self.stats.controls += 1
            self.stats.steps += steps
            if not self.running:
                self.starts += 1
                self.running = True
            return result

        return self._guarded("ControlMessage", control)

    def _control_message(self, control: ControlMessage, peer: bytes) -> SensorMessage | ErrorMessage | Held:
        """A Control given as a message, served as a native request is: read by the control layout, then applied."""
        simulation = self.simulation
        if not isinstance(simulation, ArraySimulation):
            return self.refuse_control(
                ProtocolError("unexpected message: this scene takes no Controls", ErrorCode.UNEXPECTED_MESSAGE), peer)
        flat = simulation.flat
        try:
            steps = flat.controls.decode(encode(control))
        except ProtocolError as error:
            return self.refuse_control(error, peer)
        answer = self.handle_control_values(flat.controls, steps, flat.sensors.values, peer)
        if isinstance(answer, float):
            return flat.sensor_message(flat.sensors.values, answer)
        return answer

    def _admitted_control_values(
        self, controls: _native.ControlLayout, steps: int, sensors_out: np.ndarray, peer: bytes
    ) -> float | Held:
        """handle_control_values for a newcomer, or for one of several controllers: admit, claim, then apply."""
        simulation = cast(ArraySimulation, self.simulation)
        controller = self.sessions.admit(peer)
        if self.shared:
            objects = self._control_objects
            with self._refusal_frees_place(controller):
                self._check_not_waiting(controller)
                self.sessions.claim(controller, (objects[k] for k in np.flatnonzero(controls.values_set)))
        self._accept(controller)
        simulation.apply_values(controls.values, controls.values_set, controls.events_set, controls.events_on)
        if self.shared:
            return self._hold(controller, steps)
        if self._controlled(steps, peer):
            return HELD
        return simulation.sensor_values(sensors_out)

    def _guarded(self, kind: str, handle: Callable[[], T]) -> T | ErrorMessage:
        """Run a request's handling, counting it; a refusal or a failure becomes the ErrorMessage to send."""
        self.stats.requests += 1
        try:
            answer: T | ErrorMessage = handle()
        except ProtocolError as error:
            if error.code == ErrorCode.SERVER_BUSY:
                # Normal operation, not a fault: a waiting controller may ask many times. Counted for the summary.
                self._peer_log.info("refused %s: %s", kind, error)
                self.stats.refused_busy += 1
            else:
                self._peer_log.warning("refused %s: %s", kind, error)
            answer = ErrorMessage(code=error.code, text=str(error))
        except Exception as error:  # a failing simulation must not take the server down
            log.exception("internal error while handling %s", kind)
            answer = ErrorMessage(code=ErrorCode.INTERNAL_ERROR, text=f"internal error: {error}")
        if isinstance(answer, ErrorMessage):
            self.stats.errors_sent += 1
        return answer

    def _dispatch(self, message: Message, peer: bytes) -> Message | Held | None:
        if self.long_control is not None and isinstance(message, (HandshakeInitMessage, ResetMessage)):
            self._refuse_while_stepping(peer)
        if isinstance(message, SensorRequestMessage):
            # Anyone may read; reading never renews a lease (a read-only monitor must not keep a controller out).
            self.stats.sensor_requests += 1
            return self.simulation.sensors()
        if isinstance(message, HandshakeInitMessage):
            return self._handshake_init(message, peer)
        if isinstance(message, ResetMessage):
            controller = self.sessions.admit(peer)
            if self.shared and len(self.sessions.active) > 1:
                with self._refusal_frees_place(controller):
                    raise ProtocolError(
                        "server busy: other controllers drive robots of this scene, and a Reset would move them too; "
                        "reset when this controller is the only one left",
                        ErrorCode.SERVER_BUSY,
                    )
            if (message.qpos or message.qvel) and not isinstance(self.simulation, StateSimulation):
                with self._refusal_frees_place(controller):
                    raise ProtocolError("this scene cannot start a reset from a given qpos/qvel",
                                        ErrorCode.UNEXPECTED_MESSAGE)
            self._accept(controller)
            if message.qpos or message.qvel:
                self.simulation.reset_to(message.qpos, message.qvel)
            else:
                self.simulation.reset()
            self.running = False
            self.stats.resets += 1
            return ResetMessage()
        if isinstance(message, ErrorMessage):
            if self.sessions.leave(peer) is None:
                # Someone who never drove (a refused controller, say) is leaving: nothing to end.
                self._peer_log.info("a peer that drives nothing left: error %s: %s", message.code, shown(message.text))
                return None
            self._peer_log.info("controller ended its session: error %s: %s", message.code, shown(message.text))
            self._left()
            self.stats.sessions_ended += 1
            self.session_ended.set()
            return None
        raise ProtocolError(
            f"unexpected message: a {type(message).__name__} is sent by servers, not to them",
            ErrorCode.UNEXPECTED_MESSAGE,
        )

    def _handshake_init(self, message: HandshakeInitMessage, peer: bytes) -> Message:
        if message.version != PROTOCOL_VERSION:
            return ErrorMessage(
                code=ErrorCode.VERSION_NOT_SUPPORTED,
                text=f"protocol version {message.version} is not supported; this server speaks {PROTOCOL_VERSION}",
            )
        self._accept(self.sessions.admit(peer, rejoin=True))
        self.stats.handshakes += 1
        if not self.shared:
            # A lone controller starts afresh; with several, the others keep the simulation running.
            self.running = False
        return self._handshake

    def _accept(self, controller: Controller) -> None:
        """Its request to drive is carried out: a newcomer now holds its place."""
        if not controller.accepted:
            controller.accepted = True
            if len(self.sessions.active) == 1:
                # Alone (the one before it left or lapsed), it starts afresh, as after a handshake.
                self.running = False

    @contextlib.contextmanager
    def _refusal_frees_place(self, controller: Controller) -> Iterator[None]:
        """A newcomer whose first request to drive is refused takes no place (it would hold the others back)."""
        try:
            yield
        except ProtocolError:
            if not controller.accepted:
                self.sessions.leave(controller.peer)
            raise

    @staticmethod
    def _check_not_waiting(controller: Controller) -> None:
        if controller.held_steps is not None:
            raise ProtocolError(
                "unexpected message: this controller's previous Control still waits for the other controllers' "
                "Controls of the same step",
                ErrorCode.UNEXPECTED_MESSAGE,
            )

    def _hold(self, controller: Controller, steps: int) -> Held:
        """Keep an applied Control of one of several controllers until the step every one of them waits for."""
        controller.held_steps = steps
        self.stats.controls += 1
        return HELD

    def round_complete(self) -> bool:
        """With several controllers: True when every one of them has a Control waiting for the next step."""
        return self.sessions.round_complete()

    def step_round(self) -> tuple[list[bytes], int]:
        """Take the step the waiting Controls asked for; return their peers, to answer, and the steps taken."""
        peers, steps = self.sessions.take_round()
        if not self.running:
            self.starts += 1
            self.running = True
        self.fresh_control = True
        taken = self.steps_per_control(steps)
        if self.chunk_long_controls and taken > LONG_CONTROL_STEPS:
            self.long_control = LongControl(peers, taken)
        else:
            self.step(taken)
        return peers, taken

    def lapse_leases(self) -> None:
        """While other controllers' Controls wait, end the hold of every controller whose lease has lapsed.

        Otherwise a lapse matters only to a newcomer, and waits for one.
        """
        if self.sessions.waiting() and self.sessions.lapse():
            self._left()

    def peer_left(self, peer: bytes) -> None:
        """End `peer`'s hold at once: its connection is gone (a Control of it that waits is dropped)."""
        if self.sessions.leave(peer) is not None:
            log.info("controller left: its connection closed")
            self.stats.peers_left += 1
            self._left()

    def _left(self) -> None:
        """After controllers left: with none left, the next one starts afresh."""
        if not self.sessions.active:
            self.running = False

    def _controlled(self, steps: int, peer: bytes) -> bool:
        """What follows every applied Control: counting, starting, and in lockstep the steps.

        True when the steps are left to the loop, in chunks (`long_control`): the Control is answered HELD.
        """
        self.stats.controls += 1
        if not self.running:
            self.starts += 1
            self.running = True
        self.fresh_control = True
        taken = self.steps_per_control(steps)
        if self.chunk_long_controls and taken > LONG_CONTROL_STEPS:
            self.long_control = LongControl([peer], taken)
            return True
        if taken:
            self.step(taken)
        return False

    def step_long_control(self, steps: int) -> None:
        """Take `steps` more of the steps of `long_control`: steps of a Control, not steps without one."""
        self.simulation.step(steps)
        self.stats.steps += steps
        self.fresh_control = False

    def _refuse_while_stepping(self, peer: bytes) -> None:
        """While a long Control is stepped, only reads are served: refuse `peer`'s request to drive."""
        long = self.long_control
        assert long is not None
        progress = f"{long.taken} of {long.steps} steps taken"
        if peer in long.peers:
            raise ProtocolError(
                f"unexpected message: this controller's previous Control is still being stepped ({progress}); "
                "wait for its answer",
                ErrorCode.UNEXPECTED_MESSAGE,
            )
        raise ProtocolError(
            f"server busy: a Control of many steps is being stepped ({progress}); retry once it is answered",
            ErrorCode.SERVER_BUSY,
        )

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
