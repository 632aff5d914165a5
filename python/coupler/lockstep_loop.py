"""Lockstep serving: the simulation steps only when a Control arrives."""

from __future__ import annotations

import threading

from coupler.errors import TimeoutError
from coupler.messages import ControlMessage, SensorMessage
from coupler.run_clock import RunClock
from coupler.server import Server
from coupler.simulation_server import SimulationServer


class LockstepLoop:
    """Answers requests one by one; each Control steps the simulation.

    With a `clock` (real-time lockstep), the answer to a Control is held
    back until the wall clock has caught up with the simulated time, so the
    simulation never runs ahead of real time; it sleeps, never spins.
    """

    def __init__(
        self,
        server: Server,
        simulation_server: SimulationServer,
        clock: RunClock | None = None,
        stop_after: float | None = None,
        exit_on_session_end: bool = False,
    ) -> None:
        self.server = server
        self.sim = simulation_server
        self.clock = clock
        self.stop_after = stop_after
        self.exit_on_session_end = exit_on_session_end

    def run(self, stop: threading.Event, poll_timeout: float = 0.5) -> None:
        """Serve until `stop` is set, `stop_after` simulated seconds pass, or a session ends with --exit-on-error.

        `stop` is checked every `poll_timeout` seconds (default 0.5) while idle;
        waiting blocks in ZeroMQ's poll, so an idle server uses no CPU.
        """
        while not stop.is_set():
            try:
                request = self.server.receive(timeout=poll_timeout)
            except TimeoutError:
                continue
            was_running = self.sim.running
            answer = self.sim.handle(request.message)
            stepped = isinstance(request.message, ControlMessage) and isinstance(answer, SensorMessage)
            if stepped and self.clock is not None:
                if not was_running:
                    # The first Control after a handshake or reset starts the clock.
                    steps = max(request.message.steps, 1)
                    self.clock.anchor(answer.simulated_time - steps * self.sim.handshake.time_step)
                self.clock.wait_until(answer.simulated_time, late_after=self.sim.handshake.time_step)
            if answer is not None:
                self.server.reply(request, answer)
            if self.exit_on_session_end and self.sim.session_ended.is_set():
                return
            if stepped and self.stop_after is not None and answer.simulated_time >= self.stop_after:
                return
