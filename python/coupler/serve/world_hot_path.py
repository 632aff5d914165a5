"""A lone controller's Controls for every world answered in C++ (`_native.WorldHotPath`), for a `LockstepLoop`.

The batched server's counterpart of `coupler.serve.hot_path`: a Control for
every world with values the physics takes for each, asking for no image, is
received, checked, its worlds reset (those it lists, by each world's
`MujocoSimulation.native_reset`) or scattered and stepped, read, encoded
(through the shared-memory ring when it asks) and answered in C++ with the
GIL released, by the very objects `BatchedResponder` uses, so both send the
same bytes. The first Control after a handshake or a Reset is taken there
like any other: it starts the run, which C++ reports (`started`) and Python
marks. Everything else comes back to Python, which keeps the control
plane and every refusal's text: a newcomer's Control (which admits it), a Control with images or resets that do not
match, one of more than `LONG_CONTROL_STEPS` steps (Python takes them in chunks), a value that is not finite or
large enough to need `WorldBatch`'s check, any other request, the first
clamp of a value (Python warns about it), a failure, and a timer. Python is
told what happened and counts it as its own path does. Traced (`--trace`),
C++ returns after each Control it answers, with its frames, which Python
logs as its own path would, in the same order; with `--trace-sizes`, after
each Control whose frame sizes change, which Python logs.

Observed (`--publish`, `--record`: the observer is a `NativePublisher`), C++
publishes on its `coupler._native.FramePublisher` what the Python path would,
byte for byte: each Control it answers, every world's MuJoCo state after the
step (world 0's with its simulated time) and the answer. Controls asking for
images stay Python's, which renders them and publishes them through the
observer.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from coupler.serve.batched_worlds import BatchedResponder
from coupler.serve.frame_observer import NativePublisher, ObservedResponder
from coupler.serve.hot_path import RETURN_AFTER
from coupler.serve.long_control import LONG_CONTROL_STEPS
from coupler.serve.run_clock import RunClock

log = logging.getLogger(__name__)


class WorldHotPath:
    """Serves a lone controller's Controls for every world of `responder`'s batch in C++."""

    def __init__(self, responder: BatchedResponder, stop_after: float | None = None,
                 publisher: NativePublisher | None = None) -> None:
        self.responder = responder
        self.sim = responder.sim
        self._path = responder.worlds.hot_path(  # type: ignore[attr-defined]  # checked by for_loop
            responder.world_sensors, responder.world_times, LONG_CONTROL_STEPS,
            math.inf if stop_after is None else stop_after, trace=responder.sim.trace)
        if publisher is not None:
            self._path.publish_to(publisher.native)
        self.controls = 0  # Controls for every world answered in C++ so far
        self.resets = 0  # worlds they reset
        self.reads = 0  # none: reads go to Python
        self.controller_served = False  # the last serve() answered a Control

    @classmethod
    def for_loop(cls, responder: Any, clock: RunClock | None, stop_after: float | None) -> WorldHotPath | None:
        """The hot path for a lockstep loop over `responder`, or None where every request goes through Python:
        it needs the batched responder, observed or not (observed, C++ publishes what the observer would), in
        lockstep, one controller, unpaced, worlds with a native hot path (a `hot_path` method, as
        `coupler.mujoco.world_batch.WorldBatch` has). --trace and --trace-sizes log what C++ reports."""
        publisher: NativePublisher | None = None
        if isinstance(responder, ObservedResponder):
            publisher, responder = responder.observer, responder.inner
        if type(responder) is not BatchedResponder:
            return None
        sim = responder.sim
        if not sim.lockstep or sim.shared or (clock is not None and clock.speed is not None):
            return None
        if not hasattr(responder.worlds, "hot_path"):
            return None
        return cls(responder, stop_after, publisher)

    # Controls of many steps are Python's to take in chunks: none is ever in progress here, nor cut at a stop.
    long_in_progress = False
    stopped_at_stop_after = False

    def end_long_control(self, why: str = "") -> None:
        """Nothing to answer: no Control of many steps is ever in progress here."""

    def ready(self) -> bool:
        """True when the next request may go to C++: an accepted lone controller drives the worlds, running or
        waiting for the Control that starts them."""
        sim = self.sim
        active = sim.sessions.active
        if len(active) != 1 or sim.long_control is not None:
            return False
        return all(c.accepted for c in active.values())

    def serve(self, return_after: float) -> tuple[Any | None, float | None]:
        """Answer the controller's Controls for every world in C++ for up to `return_after` seconds (0.1 at most).

        Returns the request C++ handed back (None when none came), to be served
        as if it had just arrived, and world 0's time after the last Control
        answered (None when none was)."""
        sim = self.sim
        responder = self.responder
        controller = next(iter(sim.sessions.active.values()))
        shared = responder.shared_images
        ring = shared.ring if shared is not None else None
        outcome = self._path.run(responder.server, controller.peer, min(return_after, RETURN_AFTER), ring,
                                 starting=not sim.running, steps_before=sim.stats.steps,
                                 sizes_logged=responder.sizes_logged)
        if outcome.started:
            sim.simulation_run.start()
        served = outcome.controls
        self.controller_served = served > 0
        self.controls += served
        self.resets += outcome.resets
        stats = sim.stats
        stats.requests += served
        stats.controls += served
        stats.steps += outcome.steps
        if served or outcome.failure:
            # Its lease runs from its last Control, as on the Python path.
            controller.seen = sim.sessions.clock() - outcome.since_last_control
        if outcome.failure:
            stats.requests += 1
            stats.errors_sent += 1
            log.error("internal error while handling ControlMessage: %s", outcome.failure)
        if served or outcome.failure:
            # Logged as the Python path logs an exchange: traced, its frames once answered; its sizes once sent.
            if sim.trace:
                responder.log_traced(outcome.request_frame, outcome.answer_frame)
            responder.trace_exchange(outcome.request_bytes, outcome.answer_bytes)
        return outcome.request, outcome.simulated_time
