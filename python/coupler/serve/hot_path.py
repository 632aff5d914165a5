"""The controllers' round trips without Python: Controls and reads answered in C++.

In lockstep, with one controller holding the simulation, a Control from
that controller is received, checked, applied,
stepped, read and answered by `coupler._native.HotPath`, with the GIL
released, through the very C++ objects the Python path uses (the layouts of
`NativeResponder`, the simulation's scatter, gather and stepper), so both
send the same bytes. SensorRequests, the controller's and everyone else's,
are answered there too, waiting in the C++ `WaitingRequests` as in
`coupler.serve.controller_first` (the controller's first, `SHARE` of the
others' after each of its requests, one more after `PATIENCE` without one):
thirty readers must not send every
step back through Python. The first Control after a handshake (a new
driver's too) or a reset is taken there like any other: it starts the run,
which C++ reports (`HotPathOutcome.started`) and Python marks
(`SimulationRun.start`), and paced, C++ anchors the loop's clock, lent to
the run, at the simulated time that Control steps from. Everything
else comes back to Python, which keeps the control plane: another peer's
request to drive, another kind of request, a Control that does not match the
handshake or asks for more steps than the cap, one with a value the scatter
refuses (beyond what MuJoCo takes for its control), the first clamp
of a value, a failure, and a timer (`return_after`), so that signals, closed
peers and stops are seen as on the Python path. A Control of another
encoding than the plain one (Click's deprecated single-type value lists, an
unknown field) is read in C++ by the full decoder and the same
`ControlLayout` the Python path reads with. A state Python left unsettled (a
Control it applied that waits for its round, a failed step) is settled
before C++ takes over (`HotPathSimulation.settle`). A newcomer's Control is one: Python
decides whether it may drive (`ControlAnswer`, refusals answered there) and
once it is admitted (answered ADMITTED) hands that very request back to
`serve(first=...)`, where C++ serves it before anything else as any other
Control of that controller. What C++ hands back passes the gate a
request from the socket passes (`coupler.serve.busy_grace`): a newcomer's
request to drive that finds the place held waits there, C++ serving on
meanwhile and returning when its grace ends.

A lone controller's Control that comes back to Python (one asking for
camera images, whose images `NativeResponder` checks, one of another
encoding Python refuses naming the problem, a newcomer's while the
simulation cannot be settled for C++) is read there and applied, stepped
and read by this same C++ object all the same
(`coupler._native.HotPath.step_checked`, through
`coupler.serve.native_control_step`); Python renders the images of the
state after the step and sends the answer with them, or paced, when it is
due later than `LONGEST_HOLD`, hands it back to be held here (`hold`) and
sent, and published, when due, as this path's own. One of more than
`LONG_CONTROL_STEPS` steps is applied in C++ (`start_chunks`) and answered
HELD: the next runs take its chunks as their own (cut at `stop_after`
there), serving the others between two, and return once the last is taken
(`HotPathOutcome.long_done`), for the loop to render the images and answer.
Only the rendering is Python's.

A Control (or round) of more than `LONG_CONTROL_STEPS` steps is taken in chunks in C++
(`coupler._native.StepChunks`), reads answered between them with the state
of the last chunk. Anything else returns to Python with the Control in
progress, mirrored in `SimulationServer.long_control` so that requests to
drive are refused as while any long Control is stepped; the next serve()
goes on with it, and a stop ends it (`end_long_control`), as does reaching
`stop_after`. Python is told what happened (Controls, steps, reads,
clamps, the time reached) and counts it. With `--trace`, C++ returns after
each Control with its frames, which Python logs, and hands every read to
Python, which logs it as it serves it.

With several controllers (`--controllers N`), a Control of one of them for
the robots it drives is applied and waits in `ControllerSessions.rounds`
(with those Python held); once every controller's waits, C++ takes the
round's steps and answers them all, as `coupler.serve.lockstep_loop` would.
A round completed in Python (by a controller that left or lapsed, or a
Control applied there) is stepped by C++ first thing in its next run. A Control claiming a robot its controller does not drive yet (a newcomer's
too) goes to Python, which claims the robot (or refuses the Control) and
hands it back to C++, to be applied and wait for its round; one of a
controller whose Control still waits is refused there; a round of more than
`LONG_CONTROL_STEPS` steps is taken in chunks, as a lone controller's. Traced, C++ returns after each
Control it takes, which Python logs as held; published, C++ publishes each
Control as it takes it and a round's state and answers.

With a pacing clock (`--realtime`), lent to each run, C++ holds each answer
until its time is due by it, as `LockstepLoop` does, the first Control's (or round's) for its
own steps. While a lone controller's answer, or a round's answers, wait
longer than `LONGEST_HOLD`, C++ answers the others' reads and hands
anything else back, returning on the usual timer with the answers still
held (`HotPathOutcome.answer_held`, their controllers' leases renewed
meanwhile), which the next serve() sends when due and a stop sends at once
(`end_long_control`); only their last `LONGEST_HOLD` is slept through.
Published, a held round's state goes out when it is stepped, its answers
when they are sent. A Control (or round) of more than `LONG_CONTROL_STEPS`
steps is taken in chunks as fast as they step, then its answers are held
so; one that starts the run anchors its clock once its steps are taken, as
`LockstepLoop` does.

Observed (`--publish`, `--record`: the observer is a `NativePublisher`), C++
publishes on its `coupler._native.FramePublisher` what the Python path would
(as `coupler.serve.world_hot_path` does for a batch of worlds),
byte for byte: a Control, the MuJoCo state after its step and its answer; a
read and its answer (no state: a read takes no step). Reads are answered in
C++ then too, in the same order as without a publisher; traced, they go to
Python, which logs them.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from coupler import _native
from coupler.serve.answers_in_progress import AnswersInProgress
from coupler.serve.frame_observer import NativePublisher, ObservedResponder
from coupler.serve.hot_path_parts import HotPathParts, HotPathSimulation
from coupler.serve.long_control import CHUNK_SECONDS
from coupler.serve.native_control_step import NativeControlStep
from coupler.serve.native_responder import NativeResponder
from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.serve.run_clock import RunClock
from coupler.wire.errors import Error
from coupler.wire.peer_text import shown

__all__ = ["RETURN_AFTER", "HotPath", "HotPathParts", "HotPathSimulation"]

log = logging.getLogger(__name__)

# The C++ loop returns to Python at least this often (seconds), busy or idle: how soon a signal (SIGTERM) or a
# stop is acted on while a controller keeps it busy.
RETURN_AFTER = 0.1


class HotPath(AnswersInProgress):
    """Serves the controllers' Controls through `coupler._native.HotPath` for a `LockstepLoop`."""

    def __init__(self, responder: NativeResponder, parts: HotPathParts, stop_after: float | None = None,
                 publisher: NativePublisher | None = None, clock: RunClock | None = None) -> None:
        sim = responder.sim
        simulation = sim.simulation
        if not isinstance(simulation, HotPathSimulation):
            raise TypeError(f"a {type(simulation).__name__} has no parts for the hot path")
        flat = simulation.flat  # type: ignore[attr-defined]  # an ArraySimulation, as NativeResponder demands
        super().__init__(responder, _native.HotPath(
            flat.controls, flat.sensors, parts.scatter, parts.gather, parts.stepper,
            stop_after=math.inf if stop_after is None else stop_after,
            trace=sim.trace, time_step=sim.handshake.time_step, chunk_seconds=CHUNK_SECONDS), clock, stop_after)
        # What answers the reads C++ could not (the simulation failed): the responder as the loop sees it, so that a
        # publisher sees them as every read.
        self._reads_responder: Any = responder
        self._simulation = simulation
        # The Controls served in Python are stepped through this very object: one C++ object steps the simulation.
        self._control_step = NativeControlStep(simulation, self._path, chunks=True)
        self.sim.control_answer.step_with(self._control_step)
        if publisher is not None:
            data = getattr(simulation, "data", None)  # a MuJoCo scene's mjData: its state is published after each step
            state = None if data is None else (data.qpos, data.qvel, data.act, data.ctrl, data.mocap_pos,
                                               data.mocap_quat)
            self._path.publish_to(publisher.native, state)
        self._controls = 0  # Controls answered (several controllers: taken to wait for their round) by serve()
        self.reads = 0  # SensorRequests answered in C++ so far
        self.rounds = 0  # several controllers: rounds stepped and answered in C++ so far
        self.controller_served = False  # the last serve() took a request of a controller
        self._free_run_states: Any = None  # published free runs: the states the observer sees
        # A free run's failures: each Control restarts a run that fails again.
        self._failure_log = RateLimitedLog(log)
        # Several controllers: each drives objects by name; C++ takes their indices in the control arrays.
        self._object_index = {o.name: i for i, o in enumerate(flat.controls.objects)}

    @classmethod
    def for_loop(cls, responder: Any, clock: RunClock | None, stop_after: float | None) -> HotPath | None:
        """The hot path for a lockstep loop over `responder`, or None where it cannot be made.

        It needs the native responder, observed or not (observed, C++
        publishes what the observer would), and a simulation with hot path
        parts. --trace and --trace-sizes log what C++ reports.
        """
        publisher: NativePublisher | None = None
        observed_responder = responder
        if isinstance(responder, ObservedResponder):
            publisher, responder = responder.observer, responder.inner
        if type(responder) is not NativeResponder:
            return None
        sim = responder.sim
        if not sim.lockstep:
            return None
        if not isinstance(sim.simulation, HotPathSimulation):
            return None
        parts = sim.simulation.hot_path_parts()
        if parts is None:
            return None
        path = cls(responder, parts, stop_after, publisher, clock)
        path._reads_responder = observed_responder
        return path

    @classmethod
    def for_free_run(cls, responder: Any, stop_after: float | None) -> HotPath | None:
        """The hot path for a free run over `responder`, or None where it cannot be made.

        It needs the native responder, observed or not (observed, C++
        publishes what the observer would, and the states its `free_run_states`
        shows), and a simulation with hot path parts.
        """
        publisher: NativePublisher | None = None
        states = None
        if isinstance(responder, ObservedResponder):
            publisher, states, responder = responder.observer, responder.free_run_states, responder.inner
        if type(responder) is not NativeResponder:
            return None
        sim = responder.sim
        if sim.lockstep or not isinstance(sim.simulation, HotPathSimulation):
            return None
        parts = sim.simulation.hot_path_parts()
        if parts is None:
            return None
        path = cls(responder, parts, stop_after, publisher)
        path._free_run_states = states
        return path

    @property
    def controls(self) -> int:
        """Controls stepped in C++ so far: answered by serve() (several controllers: taken to wait for their round),
        and those Python read and this very C++ object stepped (`NativeControlStep`)."""
        return self._controls + self._control_step.controls

    def takes_chunks(self) -> bool:
        """True while its C++ object has a Control of many steps in progress, whose chunks serve() takes."""
        return bool(self._path.has_long_control)

    def ready(self) -> bool:
        """True when the next request may go to C++: accepted controllers (one, unless several share the
        simulation) drive a settled simulation, running or waiting for the Control that starts it."""
        sim = self.sim
        if self.long_in_progress:
            return True  # its controller waits for its answer (or has gone, and the answer goes nowhere)
        active = sim.sessions.active
        if not active or (len(active) != 1 and not sim.shared):
            return False
        return all(c.accepted for c in active.values()) and self._settled()

    def takes_admitted(self) -> bool:
        """True when the Control that admits a controller may be handed to serve() (`ControlAnswer.hands_over`):
        the simulation is settled, as C++ takes it."""
        return self._settled()

    def _settled(self) -> bool:
        """Settle the simulation for C++ (a Control applied in Python and waiting for its round, or a failed step, left
        it unsettled); False when it fails, its failure then answered as Python answers a failing step."""
        try:
            self._simulation.settle()
        except (RuntimeError, Error):  # what a failing stepper raises, from C++ or MuJoCo
            return False
        return True

    def serve(self, return_after: float, first: Any | None = None) -> tuple[Any | None, float | None]:
        """Answer the controller's Controls in C++ for up to `return_after` seconds (0.1 at most).

        `first`: a request received in Python, the Control that admitted its
        controller (answered ADMITTED), served first as if it had just arrived.
        Returns the request C++ handed back (None when none came), to be
        served as if it had just arrived, and the time of the last state sent
        (None when no Control was answered).
        """
        sim = self.sim
        grace = self.responder.busy_grace
        # A newcomer's request to drive whose grace has passed (coupler.serve.busy_grace) is served next; `first`,
        # already taken from the socket, goes before it.
        waited = grace.release() if first is None else None
        if waited is not None:
            self.controller_served = False
            return waited, None
        return_after = min(return_after, RETURN_AFTER, max(grace.release_in(), 0.001))
        pacing = self._pacing()
        if sim.shared:
            return self._serve_rounds(return_after, pacing, first)
        long = sim.long_control
        held = self._held_peers[0] if self._held_peers else None
        if held is not None:
            peer = held
        else:
            peer = long.peers[0] if long is not None else next(iter(sim.sessions.active))  # a lone controller's
        controller = sim.sessions.active.get(peer)
        lease = self.responder.shared_channel
        channel = None if lease is None else lease.channel_of(peer)
        outcome = self._path.run(self.responder.server, peer, return_after,
                                 sim.stats.steps, channel=channel, starting=not sim.running, first=first, **pacing)
        self._started(outcome)
        self._hold(outcome, [peer])
        served = outcome.controls
        self.controller_served = outcome.simulated_time is not None
        self._count_run(outcome)
        if served or outcome.failure or long is not None or outcome.long_steps or held is not None:
            if outcome.answer_bytes and not outcome.failure:
                self.responder.trace_exchange(outcome.request_bytes, outcome.answer_bytes)
            if sim.trace and outcome.request_frame:
                answered = outcome.answer_frame or None
                self.responder.log_traced(outcome.request_frame, answered, held=answered is None)
            if controller is not None and (served or long is not None or outcome.long_steps):
                # Its lease runs from its last Control, or the last chunk of its long one, as on the Python path.
                controller.seen = sim.sessions.clock() - outcome.since_last_control
            if outcome.failure:
                sim.stats.count_failed_control(counted=outcome.long_failed)
                log.error("internal error while handling ControlMessage: %s", outcome.failure)
            self._answer_unanswered(outcome.unanswered_reads)
        self._mirror_long(outcome, [peer])
        return grace.arrived(outcome.request), outcome.simulated_time

    def _count_run(self, outcome: Any, steps_without_control: int = 0) -> None:
        """Count what a run's `outcome` served (Controls, reads, steps), and tell the simulation what C++ clamped and
        whether it failed."""
        self._controls += outcome.controls
        self.reads += outcome.reads
        self.sim.stats.count_run(outcome.controls, outcome.reads, outcome.steps, steps_without_control)
        if outcome.clamped or outcome.failure:
            self._simulation.hot_path_served(outcome.clamped, list(outcome.first_clamped), bool(outcome.failure))

    def _answer_unanswered(self, reads: list[Any]) -> None:
        """Answer the reads C++ took and could not answer (the simulation failed), as the loop answers any request."""
        responder = self._reads_responder
        for read in reads:
            responder.send(read, responder.respond(read))

    def _serve_rounds(self, return_after: float, pacing: dict[str, Any],
                      first: Any | None) -> tuple[Any | None, float | None]:
        """serve() for several controllers: their Controls wait in `sessions.rounds`, rounds taken in C++."""
        sim = self.sim
        sessions = sim.sessions
        index = self._object_index
        drives = [(c.peer, [index[robot] for robot in c.robots]) for c in sessions.active.values()]
        long = sim.long_control
        if long is not None and not drives:
            # Every controller of the round being stepped has left: it is stepped to its end all the same.
            drives = [(peer, []) for peer in long.peers]
        elif self._held_peers and not drives:
            drives = [(peer, []) for peer in self._held_peers]  # the same for a round whose answers are held
        outcome = self._path.run_rounds(self.responder.server, drives, sessions.rounds, return_after,
                                        sim.stats.steps, starting=not sim.running, first=first, **pacing)
        self._started(outcome)
        self._hold(outcome, [peer for peer, _ in drives])
        self.rounds += outcome.rounds
        self.controller_served = outcome.controls > 0
        self._count_run(outcome)
        if sim.trace and outcome.request_frame:
            self.responder.log_traced(outcome.request_frame, None, held=True)
        if outcome.rounds:
            sessions.round_taken(outcome.since_last_round)
            self.responder.trace_exchange(outcome.request_bytes, outcome.answer_bytes)
        if outcome.failure:
            sim.stats.count_failed_control(outcome.error_answers, counted=outcome.rounds > 0)
            log.error("internal error while stepping the controllers' Controls: %s", outcome.failure)
        self._answer_unanswered(outcome.unanswered_reads)
        self._mirror_long(outcome, [peer for peer, _ in drives])
        stepped_to = outcome.simulated_time if outcome.rounds and not outcome.failure else None
        return self.responder.busy_grace.arrived(outcome.request), stepped_to

    def serve_free(self, clock: RunClock, return_after: float) -> tuple[Any | None, float | None]:
        """A free run's steps and answers in C++ for up to `return_after` seconds (0.1 at most), paced by `clock`.

        Returns the request C++ handed back (None when none came), to be
        served as if it had just arrived, and the time of the last step taken (None when none was).
        """
        sim = self.sim
        grace = self.responder.busy_grace
        waited = grace.release()
        if waited is not None:
            return waited, None  # as in serve()
        controller = next(iter(sim.sessions.active.values()))
        time_step = sim.handshake.time_step
        outcome = self._path.run_free(
            self.responder.server, controller.peer, min(return_after, RETURN_AFTER, max(grace.release_in(), 0.001)),
            clock=clock, time_step=time_step, late_after=time_step, fresh_control=sim.fresh_control,
            steps_before=sim.stats.steps, states=self._free_run_states)
        self._count_run(outcome, outcome.steps_without_control)
        sim.simulation_run.fresh_control = outcome.fresh_control
        if outcome.controls:
            self.responder.trace_exchange(outcome.request_bytes, outcome.answer_bytes)
            if sim.trace:
                self.responder.log_traced(outcome.request_frame, outcome.answer_frame)
            # Its lease runs from its last Control, as on the Python path.
            controller.seen = sim.sessions.clock() - outcome.since_last_control
        if outcome.failure:
            if outcome.error_answers:
                sim.stats.count_failed_control()
            # Stepping on would fail at every step of the clock: the run stands still, its requests served, until a
            # Control starts it again.
            sim.simulation_run.running = False
            # Its first line, as an answer gives it (coupler::failed_step_frame).
            self._failure_log.log(logging.ERROR, "the simulation failed while stepping, and stands still until a "
                                  "Control starts it again: %s", shown(outcome.failure.partition("\n")[0]))
        return grace.arrived(outcome.request), outcome.simulated_time
