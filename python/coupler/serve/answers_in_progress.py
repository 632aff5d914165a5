"""What a loop's C++ hot path still owes across its serve() calls: answers it holds for their time, a long Control.

Both hot paths (`coupler.serve.hot_path` of one world, `coupler.serve.world_hot_path`
of a batch) return to Python every 0.1 s at most, and may do so with work
under way in C++: paced (`--realtime`), answers held until they are due;
a Control of more than `LONG_CONTROL_STEPS` steps, taken in chunks (its
own, or one Python applied there to answer itself). Python mirrors such a
Control in `SimulationServer.long_control`, so that requests to drive are
refused while it is stepped (`coupler.serve.long_control`); keeps the
leases of the controllers that wait for its answers; notes in it the steps
taken, and for one Python answers, its end (taken whole, or failed); and
ends it on a stop, or where `--stop-after` cuts it, answered with
SessionEnded (one Python answers, by the loop).
"""

from __future__ import annotations

from typing import Any

from coupler.serve.long_control import LongControl
from coupler.serve.run_clock import LONGEST_HOLD, RunClock


class AnswersInProgress:
    """The answers `path` (a loop's `_native.HotPath`, or a batch's hot path) owes to the controllers of `responder`
    across serve() calls; paced by `clock` when it has a speed; a long Control cut at `stop_after` simulated s."""

    def __init__(self, responder: Any, path: Any, clock: RunClock | None, stop_after: float | None) -> None:
        self.responder = responder
        self.sim = responder.sim
        self._path = path
        # Paced (a clock with a speed): answers wait for their time in C++.
        self._clock = clock if clock is not None and clock.speed is not None else None
        self._stop_after = stop_after
        self._held_peers: list[bytes] = []  # paced: the controllers whose answers C++ holds until their time
        # A Control of many steps reached stop_after and was ended: the loop ends.
        self.stopped_at_stop_after = False

    @property
    def long_in_progress(self) -> bool:
        """True while a Control's answer is still to come across serve()s: one of many steps (a lone controller's
        or a round's) stepped in C++, or a paced answer C++ holds until its time."""
        return self.sim.long_control is not None or bool(self._held_peers)

    def end_long_control(self, why: str = "") -> None:
        """Answer the Control of many steps in progress in C++ (a round's: each of its Controls), if any: the
        server stopped after some of its steps (`why`: a reason to add; one the loop answers is only ended here);
        a paced answer held (a round's: to each of its Controls) is sent at once."""
        if self._held_peers:
            self._path.send_held(self.responder.server)
            self._held_peers = []
        long = self.sim.long_control
        if long is None:
            return
        self._path.end_long_control(self.responder.server, long.stopped(why).text)
        self.sim.stats.errors_sent += 1
        self.sim.long_control = None

    def hold(self, request: Any, reply: bytes, simulated_time: float) -> bool:
        """Have C++ hold `reply`, the answer Python made to `request` (a lone controller's Control) of the state at
        `simulated_time`, until it is due: the next serve() sends it then, serving the others meanwhile, as it does
        its own; False (nothing held) unpaced, while an answer is held or a Control of many steps is in progress,
        or for a request through the shared channel (its client waits there)."""
        if self._clock is None or self.long_in_progress or request.through_channel:
            return False
        self._path.hold(request, reply, simulated_time)
        self._held_peers = [request.peer]
        self.sim.sessions.renew(request.peer)  # waiting for its answer, not gone
        return True

    def _started(self, outcome: Any) -> None:
        """A Control (or round) taken in C++ that started the run (`outcome.started`) makes it run; paced, C++
        anchored the clock it was lent there."""
        if outcome.started:
            self.sim.simulation_run.start()

    def _pacing(self) -> dict[str, Any]:
        """The pacing arguments of a run, which lend it the clock: none unpaced."""
        if self._clock is None:
            return {}
        return {"clock": self._clock, "late_after": self.sim.handshake.time_step, "longest_hold": LONGEST_HOLD}

    def _hold(self, outcome: Any, peers: list[bytes]) -> None:
        """Note the answers to `peers` C++ holds for their time after `outcome`; their leases run on meanwhile."""
        if not outcome.answer_held:
            self._held_peers = []
            return
        if not self._held_peers:
            self._held_peers = peers
        for peer in self._held_peers:
            self.sim.sessions.renew(peer)  # waiting for its answer, not gone

    def _mirror_long(self, outcome: Any, peers: list[bytes]) -> None:
        """Mirror the Control of many steps C++ has in progress (of `peers`, when it started in this run) in
        `SimulationServer.long_control`: requests to drive are refused while it is stepped (coupler.serve.long_control).
        One that ended is forgotten there, one the loop answers noted taken whole or failed; one stopped at
        stop_after is ended here."""
        sim = self.sim
        long = sim.long_control
        if long is not None or outcome.long_steps > 0:
            sim.stats.chunks += 1  # C++ may have taken some of its chunks: reads see the state they left
        if outcome.long_steps > 0:
            if long is None or not long.answered_here:
                # The hot path's own (a run may answer one and take the next): mirrored afresh.
                long = sim.long_control = LongControl(long.peers if long is not None else peers, outcome.long_steps)
            long.taken = outcome.long_taken
            for peer in long.peers:
                sim.sessions.renew(peer)  # waiting for its answer, not gone
        elif long is not None:
            # Ended in C++: answered there, or taken to its last step (or failed) for the loop to answer.
            if outcome.long_failed:
                long.failure = outcome.failure
            else:
                long.taken = long.steps
            sim.long_control = None
        if outcome.long_at_stop_after:
            self.end_long_control(f": --stop-after {self._stop_after:g} s reached")
            self.stopped_at_stop_after = True
