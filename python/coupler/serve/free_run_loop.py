"""Free-running serving: the simulation steps on its own clock."""

from __future__ import annotations

import threading

from coupler.serve.hot_path import HotPath
from coupler.serve.responder import ClosedPeerWatch, Responder
from coupler.serve.run_clock import RunClock


class FreeRunLoop:
    """Steps the simulation at the clock's pace, applying the latest controls.

    Between steps it waits for requests until the next step is due, so
    controllers are answered at once and an idle server sleeps. A Control
    only replaces the applied controls (it does not step); steps taken
    without a fresh Control since the previous step are counted, which
    tells whether the controller kept up.

    The simulation runs from a controller's first Control until no
    controller is left. The steps, and the answers to the controller's
    Controls and to reads, are taken in C++ (`coupler.serve.hot_path`),
    which hands every other request back to be served here (traced, C++
    returns after each Control with its frames, which are logged, and hands
    reads back). Published (`--publish`, `--record`), C++ publishes what
    the observer would: each Control and each read with its answer, and the
    states `coupler.serve.frame_observer` says (at most a thousand a wall
    second on average). It needs the native responder (observed or not) and
    a simulation with C++ parts, which every scene that takes Controls has.
    """

    def __init__(
        self,
        responder: Responder,
        clock: RunClock,
        stop_after: float | None = None,
        exit_on_session_end: bool = False,
    ) -> None:
        if responder.sim.lockstep:
            raise ValueError("FreeRunLoop needs a SimulationServer with lockstep=False")
        self.responder = responder
        self.sim = responder.sim
        self.clock = clock
        self.stop_after = stop_after
        self.exit_on_session_end = exit_on_session_end
        self._closed = ClosedPeerWatch(responder)
        # Where the steps and a controller's Controls are served.
        hot_path = HotPath.for_free_run(responder, stop_after)
        if hot_path is None:
            raise ValueError("FreeRunLoop steps in C++: it needs the native responder and a simulation with C++ parts")
        self.hot_path = hot_path

    def run(self, stop: threading.Event, poll_timeout: float = 0.5) -> None:
        """Serve until `stop` is set, `stop_after` simulated seconds pass, or a session ends with --exit-on-error."""
        while not stop.is_set():
            if self.sim.running and self.hot_path.ready():
                handed_back, stepped_to = self.hot_path.serve_free(self.clock, poll_timeout)
                if stepped_to is not None and self.stop_after is not None and stepped_to >= self.stop_after:
                    return
                if handed_back is None:
                    self._closed.release()
                    continue
                self._closed.saw(handed_back)
                self.responder.send(handed_back, self.responder.respond(handed_back))
                if self.exit_on_session_end and self.sim.session_ended.is_set():
                    return
                continue
            # Not running (no controller yet, or none left), or C++ cannot take the simulation as it is (it
            # failed): requests are served, nothing steps.
            was_running = self.sim.running
            self._serve_requests(poll_timeout)
            if self.exit_on_session_end and self.sim.session_ended.is_set():
                return
            if self.sim.running and not was_running:
                # The first Control started the run: its clock starts at the simulated time now.
                self.clock.anchor(self.sim.simulation.sensors().simulated_time)

    def _serve_requests(self, timeout: float) -> None:
        """Answer every request that arrives within `timeout` seconds; return when it has passed or one was served."""
        request = self.responder.receive(timeout)
        if request is None:
            self._closed.release()
        while request is not None:
            self._closed.saw(request)
            self.responder.send(request, self.responder.respond(request))
            request = self.responder.try_receive()
