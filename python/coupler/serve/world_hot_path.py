"""A lone controller's Controls for every world answered in C++ (`_native.WorldHotPath`), for a `LockstepLoop`.

The batched server's counterpart of `coupler.serve.hot_path`: a Control for
every world with values the physics takes for each, or with none (one that
steps no world: it resets the worlds it lists, if any, and reads them all),
asking for no image, is received, checked, its worlds reset (those it lists,
by each world's `MujocoSimulation.native_reset`) or scattered and stepped,
read, encoded (through the shared-memory ring when it asks) and answered in
C++ with the GIL released, by the very objects `BatchedResponder` uses, so both send the
same bytes. The first Control after a handshake or a Reset is taken there
like any other: it starts the run, which C++ reports (`started`) and Python
marks. Everything else comes back to Python, which keeps the control
plane and every refusal's text: a newcomer's Control (which admits it), a
Control with images or resets that do not match, one beyond the cap on
steps, a value that is not finite or large enough to need `WorldBatch`'s
check, any other request, the first clamp of a value (Python warns about
it), a failure, and a timer. Python is told what happened and counts it as
its own path does. A Control for every world that Python serves (one asking
for images, a newcomer's, one with a value large enough to need
`WorldBatch`'s check) is checked there, then applied, stepped and read by
this very C++ object all the same (`coupler.serve.native_world_step`):
Python renders its images and answers it; one of more than
`LONG_CONTROL_STEPS` steps is applied here and its chunks taken by the next
runs as their own, which return once the last is taken, for the loop to
render its images and answer. An ordinary Control of as many steps for
world 0 alone is taken so by world 0's single-world hot path. A Control of more
than `LONG_CONTROL_STEPS` steps is stepped in C++ in chunks (`coupler::StepChunks`, as on the single-world
path), each request that arrives between two chunks coming back to Python
(reads answered, requests to drive refused: it is mirrored in
`SimulationServer.long_control`), and it stops at `--stop-after` or when the
server stops, answered with SessionEnded. Traced (`--trace`),
C++ returns after each Control it answers, with its frames, which Python
logs as its own path would, in the same order; with `--trace-sizes`, after
each Control whose frame sizes change, which Python logs. Paced
(`--realtime`), each answer waits for its time on the wall clock in C++, as
on the single-world path (`coupler::AnswerPacing`): one due later than
`LONGEST_HOLD` is held there while every other request comes back to Python
(reads are answered meanwhile), and the Control that starts a run anchors
the clock, the loop's own, lent to the run. The answer Python makes to a
Control asking for images is held there too (`hold`), once rendered.

Observed (`--publish`, `--record`: the observer is a `NativePublisher`), C++
publishes on its `coupler._native.FramePublisher` what the Python path would,
byte for byte: each Control it answers, every world's MuJoCo state after the
step (world 0's with its simulated time) and the answer (a Control of many
steps: the Control and the states as it is taken, the answer once stepped,
as the Python path publishes them). Controls asking for
images are answered, and so published through the observer, by Python,
which renders them; paced, C++ publishes such an answer it held when it
sends it.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from coupler.limits import MAX_STEPS_PER_CONTROL
from coupler.serve.answers_in_progress import AnswersInProgress
from coupler.serve.batched_worlds import BatchedResponder
from coupler.serve.frame_observer import NativePublisher, ObservedResponder
from coupler.serve.hot_path import RETURN_AFTER, HotPath
from coupler.serve.native_world_step import NativeWorldStep
from coupler.serve.run_clock import RunClock

log = logging.getLogger(__name__)


class WorldHotPath(AnswersInProgress):
    """Serves a lone controller's Controls for every world of `responder`'s batch in C++."""

    def __init__(self, responder: BatchedResponder, stop_after: float | None = None,
                 publisher: NativePublisher | None = None, clock: RunClock | None = None) -> None:
        super().__init__(responder, responder.worlds.hot_path(
            responder.world_sensors, responder.world_times, MAX_STEPS_PER_CONTROL,
            math.inf if stop_after is None else stop_after, trace=responder.sim.trace,
            time_step=responder.sim.handshake.time_step), clock, stop_after)
        if publisher is not None:
            self._path.publish_to(publisher.native)
        # The Controls for every world served in Python are stepped through this very object.
        self._world_step = NativeWorldStep(self._path, chunks=True)
        responder.step_worlds_with(self._world_step)
        self._controls = 0  # Controls for every world answered by serve() so far
        # The single-world hot path whose C++ object steps world 0's ordinary Controls (which Python reads).
        self.world_0: HotPath | None = None
        self._resets = 0  # worlds they reset
        self.reads = 0  # none: reads go to Python
        self.controller_served = False  # the last serve() answered a Control

    @classmethod
    def for_loop(cls, responder: Any, clock: RunClock | None, stop_after: float | None) -> WorldHotPath | None:
        """The hot path for a lockstep loop over `responder`, or None where it cannot be made:
        it needs the batched responder, observed or not (observed, C++ publishes what the observer would), in
        lockstep, one controller. --trace and --trace-sizes log what C++ reports; paced by `clock`, C++ holds
        each answer until its time."""
        publisher: NativePublisher | None = None
        if isinstance(responder, ObservedResponder):
            publisher, responder = responder.observer, responder.inner
        if type(responder) is not BatchedResponder:
            return None
        sim = responder.sim
        if not sim.lockstep or sim.shared:
            return None
        path = cls(responder, stop_after, publisher, clock)
        # World 0's ordinary Controls, which Python reads: stepped in C++ through a single-world hot path's C++
        # object, as on a server of one world (its run() is never called here: this path serves the lone controller).
        parts = sim.simulation.hot_path_parts()
        if parts is not None:
            path.world_0 = HotPath(responder, parts, stop_after, None, clock)
        return path

    @property
    def controls(self) -> int:
        """Controls for every world stepped in C++ so far: answered by serve(), and those Python checked and this very
        C++ object stepped (`NativeWorldStep`)."""
        return self._controls + self._world_step.controls

    @property
    def resets(self) -> int:
        """Worlds those Controls reset."""
        return self._resets + self._world_step.resets

    def ready(self) -> bool:
        """True when the next request may go to C++: an accepted lone controller drives the worlds, running or
        waiting for the Control that starts them, or its answer waits for its time there."""
        sim = self.sim
        if self.long_in_progress:
            return True  # its controller waits for its answer (or has gone, and the answer goes nowhere)
        active = sim.sessions.active
        if len(active) != 1 or sim.long_control is not None:
            return False
        return all(c.accepted for c in active.values())

    def end_long_control(self, why: str = "") -> None:
        """As every hot path ends one; a Control of many steps for world 0 alone is world 0's hot path's to end."""
        if self.world_0 is not None and self.world_0.takes_chunks():
            self.world_0.end_long_control(why)
        super().end_long_control(why)

    def serve(self, return_after: float) -> tuple[Any | None, float | None]:
        """Answer the controller's Controls for every world in C++ for up to `return_after` seconds (0.1 at most).

        Returns the request C++ handed back (None when none came), to be served
        as if it had just arrived, and world 0's time after the last Control
        answered (None when none was)."""
        if self.world_0 is not None and self.world_0.takes_chunks():
            # An ordinary Control of many steps, for world 0 alone, applied by world 0's hot path: its chunks are
            # that path's to take.
            return self.world_0.serve(return_after)
        sim = self.sim
        responder = self.responder
        grace = responder.busy_grace
        waited = grace.release()
        if waited is not None:
            self.controller_served = False
            return waited, None  # a newcomer's request to drive whose grace has passed (coupler.serve.busy_grace)
        long = sim.long_control
        if long is not None:
            peer = long.peers[0]
        elif self._held_peers:
            peer = self._held_peers[0]
        else:
            peer = next(iter(sim.sessions.active))  # the lone controller's
        controller = sim.sessions.active.get(peer)
        shared = responder.shared_images
        ring = shared.ring if shared is not None else None
        pacing = self._pacing()
        return_after = min(return_after, RETURN_AFTER, max(grace.release_in(), 0.001))
        outcome = self._path.run(responder.server, peer, return_after, ring,
                                 starting=not sim.running, steps_before=sim.stats.steps,
                                 sizes_logged=responder.sizes_logged, **pacing)
        self._started(outcome)
        self._hold(outcome, [peer])
        served = outcome.controls
        self.controller_served = served > 0
        self._controls += served
        self._resets += outcome.resets
        stats = sim.stats
        stats.count_run(served, 0, outcome.steps)
        if controller is not None and (served or outcome.failure):
            # Its lease runs from its last Control, as on the Python path.
            controller.seen = sim.sessions.clock() - outcome.since_last_control
        if outcome.failure:
            stats.count_failed_control(counted=outcome.long_failed)
            log.error("internal error while handling ControlMessage: %s", outcome.failure)
        # Logged as the Python path logs an exchange: traced, its frames once answered (a held answer too, before
        # what is served while it waits); its sizes once sent.
        if sim.trace and outcome.request_frame:
            answered = outcome.answer_frame or None  # none yet: a Control of many steps, answered once stepped
            responder.log_traced(outcome.request_frame, answered, held=answered is None)
        if outcome.answer_bytes:
            responder.trace_exchange(outcome.request_bytes, outcome.answer_bytes)
        self._mirror_long(outcome, [peer])
        return grace.arrived(outcome.request), outcome.simulated_time
