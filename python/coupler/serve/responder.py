"""How a serving loop meets its controllers: a Responder receives requests,
turns each into an Answer through a `SimulationServer`, and sends it.

The loops (`coupler.serve.lockstep_loop`, `coupler.serve.free_run_loop`) decide when the
simulation steps and when an answer goes out; a Responder owns the transport
and the encoding: `coupler.serve.native_responder` receives, reads Controls and
encodes sensor frames in C++ (`coupler.serve.batched_worlds` adds Controls for
every world, `coupler.serve.frame_observer` shows every frame to an observer).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from coupler.wire.messages import ErrorMessage
from coupler.serve.simulation_server import SimulationServer


@dataclass(frozen=True)
class Answer:
    """What one request is answered with, not yet sent."""

    reply: Any  # what the responder sends (a message or a frame); None when no answer is due
    simulated_time: float | None = None  # set when a Control was applied: the time of the state sent back
    steps: int = 0  # how many steps that Control took (0 when the simulation steps on its own clock)
    held: bool = False  # a Control waiting for the other controllers' (answered by a later round_answer)
    # A Control that admitted its controller, left unapplied: the loop hands its request to the hot path.
    admitted: bool = False


HELD_ANSWER = Answer(None, held=True)
ADMITTED_ANSWER = Answer(None, admitted=True)


class Responder(Protocol):
    sim: SimulationServer
    endpoint: str  # the bound address, with the port filled in

    def receive(self, timeout: float) -> Any | None:
        """Wait up to `timeout` seconds for a valid request (bad frames are answered meanwhile); None when none came."""
        ...

    def try_receive(self) -> Any | None:
        """The next valid request, or None when none is waiting; never blocks."""
        ...

    def take_closed_peers(self) -> list[bytes]:
        """The identities (request.peer) of peers whose connection closed since the last call; never blocks."""
        ...

    def respond(self, request: Any) -> Answer:
        """Handle one request through `sim`: apply, step and read as the protocol says."""
        ...

    def round_answer(self, steps: int) -> Answer:
        """The current state, as the answer to each Control of a step of several controllers that took `steps`."""
        ...

    def error_answer(self, error: ErrorMessage) -> Answer:
        """An ErrorMessage, as this responder sends it."""
        ...

    def send(self, request: Any, answer: Answer) -> None:
        """Send the answer, if one is due. Never blocks."""
        ...

    def close(self) -> None:
        """Unbind; safe to call twice."""
        ...

    def __enter__(self) -> Responder: ...

    def __exit__(self, *exc_info: object) -> None: ...


class ClosedPeerWatch:
    """Ends the session of a controller whose connection has closed (killed, gone, silent past its
    heartbeats), so the next controller need not wait for its lease to lapse.

    The transport's reports are read when they can matter: when a request
    comes from another peer than the one before (a newcomer may be asking
    for a simulation a dead controller still holds) and while idle. The lone
    controller's round trips pay one comparison.
    """

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self._last_peer: bytes | None = None

    def saw(self, request: Any) -> None:
        """Call with every request, before it is handled."""
        peer = request.peer
        if peer != self._last_peer:
            self._last_peer = peer
            self.release()

    def release(self) -> None:
        """End the sessions of every peer the transport has reported closed since the last look."""
        for peer in self.responder.take_closed_peers():
            self.responder.sim.peer_left(peer)
