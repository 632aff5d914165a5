"""Lockstep serving: the simulation steps only when a Control arrives."""

from __future__ import annotations

import threading

from coupler.responder import Responder
from coupler.run_clock import RunClock


class LockstepLoop:
    """Answers requests one by one; each Control steps the simulation.

    With a `clock` (real-time lockstep), the answer to a Control is held
    back until the wall clock has caught up with the simulated time, so the
    simulation never runs ahead of real time; it sleeps, never spins.
    """

    def __init__(
        self,
        responder: Responder,
        clock: RunClock | None = None,
        stop_after: float | None = None,
        exit_on_session_end: bool = False,
    ) -> None:
        self.responder = responder
        self.sim = responder.sim
        self.clock = clock
        self.stop_after = stop_after
        self.exit_on_session_end = exit_on_session_end

    def run(self, stop: threading.Event, poll_timeout: float = 0.5) -> None:
        """Serve until `stop` is set, `stop_after` simulated seconds pass, or a session ends with --exit-on-error.

        `stop` is checked every `poll_timeout` seconds (default 0.5) while idle;
        waiting blocks in ZeroMQ's poll, so an idle server uses no CPU.
        """
        time_step = self.sim.handshake.time_step
        while not stop.is_set():
            request = self.responder.receive(poll_timeout)
            if request is None:
                continue
            was_running = self.sim.running
            answer = self.responder.respond(request)
            stepped_to = answer.simulated_time
            if stepped_to is not None and self.clock is not None:
                if not was_running:
                    # The first Control after a handshake or reset starts the clock.
                    self.clock.anchor(stepped_to - answer.steps * time_step)
                self.clock.wait_until(stepped_to, late_after=time_step)
            self.responder.send(request, answer)
            if self.exit_on_session_end and self.sim.session_ended.is_set():
                return
            if stepped_to is not None and self.stop_after is not None and stepped_to >= self.stop_after:
                return
