"""Who drives, as it changes the run: newcomers taking a place, refused ones freeing it, and controllers leaving.

`ControllerSessions` has the rules (places, leases, robots); this carries
out what follows from them for the run: whenever the controllers holding
the simulation change to one or to none, the next Control starts it
afresh, as after a handshake.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

from coupler.serve.controller_sessions import Controller, ControllerSessions
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.server_stats import ServerStats
from coupler.serve.simulation_run import SimulationRun
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorMessage
from coupler.wire.peer_text import shown


class ControllerAdmission:
    """Admits controllers to `sessions` and lets them go, stopping `run` when it must start afresh."""

    def __init__(self, sessions: ControllerSessions, run: SimulationRun, stats: ServerStats,
                 peer_log: RateLimitedLog) -> None:
        self.sessions = sessions
        self.run = run
        self.stats = stats
        self.peer_log = peer_log
        # Set when a controller ends its session with an ErrorMessage.
        self.session_ended = threading.Event()

    def accept(self, controller: Controller) -> None:
        """Its request to drive is carried out: a newcomer now holds its place."""
        if not controller.accepted:
            controller.accepted = True
            if len(self.sessions.active) == 1:
                # Alone (the one before it left or lapsed), it starts afresh, as after a handshake.
                self.run.running = False

    @contextlib.contextmanager
    def refusal_frees_place(self, controller: Controller) -> Iterator[None]:
        """A newcomer whose first request to drive is refused takes no place (it would hold the others back)."""
        try:
            yield
        except ProtocolError:
            if not controller.accepted:
                self.sessions.leave(controller.peer)
            raise

    def goodbye(self, message: ErrorMessage, peer: bytes) -> None:
        """`peer` sent an ErrorMessage: it ends its session, if it had one."""
        if self.sessions.leave(peer) is None:
            # Someone who never drove (a refused controller, say) is leaving: nothing to end.
            self.peer_log.info("a peer that drives nothing left: error %s: %s", message.code, shown(message.text))
            return
        self.peer_log.info("controller ended its session: error %s: %s", message.code, shown(message.text))
        self._left()
        self.stats.sessions_ended += 1
        self.session_ended.set()

    def peer_left(self, peer: bytes) -> None:
        """End `peer`'s hold at once: its connection is gone (a Control of it that waits is dropped)."""
        if self.sessions.leave(peer) is not None:
            self.peer_log.logger.info("controller left: its connection closed")
            self.stats.peers_left += 1
            self._left()

    def lapse_leases(self) -> None:
        """While other controllers' Controls wait, end the hold of every controller whose lease has lapsed.

        Otherwise a lapse matters only to a newcomer, and waits for one.
        """
        if self.sessions.waiting() and self.sessions.lapse():
            self._left()

    def _left(self) -> None:
        """After controllers left: with none left, the next one starts afresh."""
        if not self.sessions.active:
            self.run.running = False
