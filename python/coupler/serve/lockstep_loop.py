"""Lockstep serving: the simulation steps only when a Control arrives."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from coupler.wire.codec import message_kind
from coupler.wire.messages import ErrorCode, ErrorMessage, MessageType
from coupler.serve.controller_first import ControllerFirst
from coupler.serve.hot_path import HotPath
from coupler.serve.world_hot_path import WorldHotPath
from coupler.serve.long_control import CHUNK_SECONDS
from coupler.serve.request_guard import internal_error
from coupler.serve.responder import Answer, ClosedPeerWatch, Responder
from coupler.serve.run_clock import LONGEST_HOLD, RunClock

log = logging.getLogger(__name__)

# While answers wait for their images, requests are looked for this often (seconds), unpaced: a finished image
# is sent as soon as it is done; paced, the images are looked at this often.
_RENDERING_POLL = 0.001
# How long a stopping server still waits for images being rendered, to send their answers (seconds).
_RENDERING_AT_STOP = 5.0

# What _served_by_hot_path returns when the loop ends.
_DONE = object()

# What a Control still waiting for the other controllers is answered with when the server stops.
_STOPPED = ErrorMessage(
    code=ErrorCode.SESSION_ENDED,
    text="server stopped: the step this Control waited for (the other controllers' Controls) was not taken",
)


class LockstepLoop:
    """Answers requests one by one, controllers' first (`coupler.serve.controller_first`); each Control steps
    the simulation.

    With a `clock` (real-time lockstep), the answer to a Control is held
    back until the wall clock has caught up with the simulated time, so the
    simulation never runs ahead of real time; it sleeps, never spins. One
    due later than `LONGEST_HOLD` waits in the hot path, which serves
    everyone else meanwhile and sends it when due: its own answers, and
    those made here (a Control asking for images, once they are rendered).

    With several controllers (`SimulationServer.shared`), each Control is
    applied and held (in `ControllerSessions.rounds`) until every
    controller's Control for the step has arrived; then the simulation steps
    once and every held Control is answered with the same state. A
    controller that leaves or whose lease lapses no longer holds the others
    back.

    A Control (or round) of more than `LONG_CONTROL_STEPS` steps is stepped
    in chunks of about `CHUNK_SECONDS` (`coupler.serve.long_control`);
    between chunks, waiting requests are served (reads see the last chunk's
    state, requests to drive are refused) and a stop ends it. On the hot
    path C++ steps them so, and hands back the first request waiting after
    a chunk: a lone controller's loop serves it and every other waiting
    before the next chunk, for at most a chunk's time. One answered here
    (asking for images; a round completed here while the hot path cannot
    take it; a Control for every world served here) is applied in C++, and
    the hot path takes its chunks as its own, serving others between two,
    and returns once the last is taken, for the loop to render its images
    and answer it.

    The loop needs a hot path (`coupler.serve.hot_path` for the native
    responder, `coupler.serve.world_hot_path` for a batch of worlds): a
    Control is served by C++ whatever the options, and ValueError says so
    for a responder or a simulation without one. The controllers' Controls
    are answered in C++ where the hot path allows it (traced, published or
    paced too; when paced, a lone controller's answer and a round's wait
    there while others' reads are answered). The C++ loop hands back any
    other request, which then waits its turn as the controllers-first order
    says. A newcomer's Control (or one claiming robots) is admitted here, and the hot path serves it first in its next
    run (`HotPath.serve`'s `first`); so is a driving controller's Control
    this loop took from the socket itself (gathered while it served
    another request), and a round completed here is stepped there too.
    Only what the hot path hands back is served here.

    Answers that carry camera images (the "images" extension) are sent once
    their images are rendered, on the renderer's thread; meanwhile the loop
    serves everyone else.
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
        self._paced = clock is not None and clock.speed is not None
        self.stop_after = stop_after
        self.exit_on_session_end = exit_on_session_end
        self._stop_after_reached = False  # a long Control was cut at stop_after: the loop ends
        self._closed = ClosedPeerWatch(responder)
        self.sim.chunk_long_controls = True
        active = self.sim.sessions.active
        self._requests = ControllerFirst(responder, lambda peer: peer in active, lambda: bool(active))
        # Where the controllers' Controls are answered in C++.
        hot_path = HotPath.for_loop(responder, clock, stop_after) or WorldHotPath.for_loop(responder, clock, stop_after)
        if hot_path is None:
            raise ValueError("LockstepLoop serves Controls in C++: it needs the native (or batched) responder, a "
                             "simulation with C++ parts and lockstep=True")
        self.hot_path: HotPath | WorldHotPath = hot_path
        # A Control admitted in Python (answered ADMITTED), or a driving controller's Control the loop took from the
        # socket itself, for the hot path to serve before anything else.
        self._admitted: Any | None = None
        # The last request the hot path handed back: served here, not offered to it again.
        self._declined: Any | None = None
        # Until when (time.perf_counter()) the requests that wait after a chunk of the hot path's long Control are
        # served here before its next chunk; None: none are.
        self._between_chunks_until: float | None = None
        if isinstance(self.hot_path, HotPath):
            # Python decides who drives; the hot path serves the Control that admitted a controller, as its others.
            self.sim.control_answer.hands_over = self.hot_path.takes_admitted
        inner = getattr(responder, "inner", responder)
        if (not isinstance(self.hot_path, HotPath) or self.sim.shared) and getattr(inner, "shared_channel", None) is not None:
            inner.shared_channel = None  # only the hot path of a lone controller answers through the channel
        # A responder that renders images ("images" extension) does so while others are served, when one
        # controller drives: its answers are sent once their images are done.
        self._renders = getattr(responder, "inner", responder)
        if not self.sim.shared and hasattr(self._renders, "defer_images"):
            self._renders.defer_images = True

    def run(self, stop: threading.Event, poll_timeout: float = 0.5) -> None:
        """Serve until `stop` is set, `stop_after` simulated seconds pass, or a session ends with --exit-on-error.

        `stop` is checked every `poll_timeout` seconds (default 0.5) while idle;
        waiting blocks in ZeroMQ's poll, so an idle server uses no CPU.
        """
        if self.sim.shared:
            self._run_shared(stop, poll_timeout)
            return
        try:
            self._run_lone(stop, poll_timeout)
        finally:
            self.hot_path.end_long_control()
            # Stopped, they go at once; at the loop's own end (--stop-after), a Control's when due, as ever.
            self._send_rendered(None if stop.is_set() else stop, until=time.monotonic() + _RENDERING_AT_STOP)

    def _send_rendered(self, stop: threading.Event | None = None, until: float | None = None) -> bool:
        """Send the answers whose images are done (waiting for the others until `until`, a time.monotonic(), when
        the loop ends), a Control's once due unless `stop` (the loop's) is None: at once; whether answers still wait
        for theirs."""
        if not getattr(self._renders, "images_pending", False):
            return False
        while True:
            for request, answer in self._renders.rendered_answers():
                self._send_when_due(request, answer, stop, may_hold=until is None)
            pending = self._renders.images_pending
            if not pending or until is None or time.monotonic() >= until:
                return pending
            self._renders.wait_rendered(0.1)

    def _send_when_due(self, request: Any, answer: Answer, stop: threading.Event | None, may_hold: bool) -> None:
        """Send `answer` to `request`, its images rendered: a Control's once due (held by the hot path when it
        `may_hold`) unless `stop` (the loop's) is None: at once."""
        if stop is not None and answer.simulated_time is not None and self.clock is not None and \
                self._wait_or_hold([request], answer, self.clock.due_in(answer.simulated_time), stop, may_hold):
            return
        self.responder.send(request, answer)

    def _answer_in_order(self, peer: bytes, stop: threading.Event) -> None:
        """Send `peer`'s answers still waiting for images before serving its next request, so that it reads its
        answers in the order it asked (a client that timed out and asks again): their images, and their time when
        paced, are waited for."""
        while self._renders.images_pending_for(peer):
            self._renders.wait_rendered(0.1)
            for request, answer in self._renders.rendered_answers():
                self._send_when_due(request, answer, stop, may_hold=False)

    def _run_lone(self, stop: threading.Event, poll_timeout: float) -> None:
        while not stop.is_set():
            rendering = self._send_rendered(stop)
            if self._admitted is not None:
                first, self._admitted = self._admitted, None
                request = self._served_by_hot_path(poll_timeout, first)
                if request is _DONE:
                    return
            elif self._between_chunks_until is not None:
                request = self._waiting_between_chunks()
            elif rendering and not self._requests.waiting() and self.hot_path.long_in_progress:
                # An answer the hot path holds goes out when due while images render: it looks at them this often.
                request = self._served_by_hot_path(_RENDERING_POLL)
                if request is _DONE:
                    return
            elif rendering and not self._requests.waiting():
                request = self._while_rendering(stop)
            elif not rendering and not self._requests.waiting() and self.hot_path.ready():
                request = self._served_by_hot_path(poll_timeout)
                if request is _DONE:
                    return
            else:
                request = self._requests.next(poll_timeout)
            if request is None:
                self._closed.release()
                continue
            self._closed.saw(request)
            if not rendering and self._to_hot_path(request):
                self._admitted = request
                continue
            if rendering:
                self._answer_in_order(request.peer, stop)
            starts = self.sim.starts
            answer = self.responder.respond(request)
            if answer.admitted:
                self._admitted = request
                continue
            if answer.held:
                answer = self._step_long_control(stop)
            stepped_to = self._answer_when_due([request], answer, self.sim.starts != starts, stop)
            if self._done(stepped_to):
                return

    def _while_rendering(self, stop: threading.Event) -> Any | None:
        """The next request to serve while images render (None: none came meanwhile), the answers whose images are
        done sent. Unpaced, the images are looked at first, their answer sent as soon as they are done; paced, its
        answer waits for its time anyway, and requests are served as they come."""
        if self._paced:
            wait = _RENDERING_POLL
        else:
            self._renders.wait_rendered(_RENDERING_POLL)
            self._send_rendered(stop)
            wait = 0.0
        if any(self._renders.images_pending_for(peer) for peer in self.sim.sessions.active):
            # Its controller waits for its answer, not to send: the others need no share of its time.
            return self._requests.next_any(wait)
        return self._requests.next(wait)

    def _served_by_hot_path(self, wait: float, first: Any | None = None) -> Any:
        """Let the hot path serve for up to `wait` seconds (`first`: a request taken here, which it serves first); the
        request to serve next (None: none waits), or _DONE when the loop ends."""
        if first is None:
            handed_back, stepped_to = self.hot_path.serve(wait)
        else:
            assert isinstance(self.hot_path, HotPath)  # the only one `ControlAnswer.hands_over` is set for
            handed_back, stepped_to = self.hot_path.serve(wait, first)
        self._declined = handed_back
        if self._done(stepped_to):
            return _DONE
        if handed_back is not None and self.hot_path.long_in_progress:
            # Its controller waits for its answer, not to send: served at once. A lone controller's loop serves the
            # others that wait after it too, as between two chunks of a long Control stepped here (C++ hands back one
            # request a chunk).
            if not self.sim.shared:
                self._between_chunks_until = time.perf_counter() + CHUNK_SECONDS
            return handed_back
        if handed_back is not None:
            self._requests.hand_back(handed_back, after_controller=self.hot_path.controller_served)
        return self._requests.take() if self._requests.waiting() else None

    def _waiting_between_chunks(self) -> Any | None:
        """Between two chunks of the hot path's long Control: the next request waiting, taken from the socket too;
        None, ending the pause, once none waits or the chunk's time is up."""
        assert self._between_chunks_until is not None
        if time.perf_counter() < self._between_chunks_until:
            request = self._requests.take_any()
            if request is not None:
                self._declined = request  # served here, as the one handed back
                return request
        self._between_chunks_until = None
        return None

    def _to_hot_path(self, request: Any) -> bool:
        """True when `request`, which the loop took from the socket itself (gathered while it served another), is a
        driving controller's Control for the hot path to serve first, as if it had just arrived there; one the hot
        path handed back is served here."""
        return (request is not self._declined and isinstance(self.hot_path, HotPath)
                and request.type == MessageType.CONTROL and not request.through_channel
                and request.peer in self.sim.sessions.active and self.hot_path.ready())

    def _answer_when_due(self, requests: list[Any], answer: Answer, started: bool,
                         stop: threading.Event) -> float | None:
        """Send `answer` to `requests` (a lone controller's Control, or each of a round), paced once it is due on
        the wall clock; the time it stepped to (None when the hot path holds it: it reports that time once sent).

        A Control that started the run here starts the clock. An answer due
        later than `LONGEST_HOLD` is held by the hot path, which sends it once
        due while it serves everyone else, as it holds its own; one whose
        images render aside is sent once they are done (`_send_rendered`).
        """
        stepped_to = answer.simulated_time
        if stepped_to is not None and self.clock is not None:
            time_step = self.sim.handshake.time_step
            if started:
                # A Control that started the run here (a newcomer's, or one the hot path handed back) starts the clock.
                self.clock.anchor(stepped_to - answer.steps * time_step)
            delay = self.clock.delay_until(stepped_to, late_after=time_step)
            if answer.reply is not None and self._wait_or_hold(requests, answer, delay, stop):
                return None  # the hot path sends it, and reports the time it stepped to then
        for request in requests:
            self.responder.send(request, answer)
        return stepped_to

    def _wait_or_hold(self, requests: list[Any], answer: Answer, delay: float, stop: threading.Event,
                      may_hold: bool = True) -> bool:
        """Have the hot path hold `answer` to `requests`, due in `delay` seconds (True), when that is longer than
        `LONGEST_HOLD` and it `may_hold` (the loop goes on); else wait for it to be due. A failure is told at once."""
        if message_kind(answer.reply) != MessageType.SENSOR:
            return False
        if may_hold and delay >= LONGEST_HOLD and len(requests) == 1 and not self.sim.shared and \
                self.hot_path.hold(requests[0], answer.reply, answer.simulated_time):
            return True
        # An answer the hot path does not hold waits here: a round's (stepped here only when the hot path cannot
        # take it), or one through the shared channel, whose client waits there (one whose wait would be long goes
        # through the socket instead, `coupler::HotPath`).
        if delay >= LONGEST_HOLD:
            stop.wait(delay)
        elif delay > 0:
            # The common case, one step's worth: a plain sleep ends on time (a poll is ms-grained).
            time.sleep(delay)
        return False

    def _step_long_control(self, stop: threading.Event) -> Answer:
        """Have the hot path take the steps of `sim.long_control`, applied there for an answer made here, in chunks as
        its own: it answers reads between two and hands back the rest, served here (requests to drive are refused
        meanwhile); the answer to its Controls once its last step is taken."""
        long = self.sim.long_control
        assert long is not None
        while self.sim.long_control is long and not stop.is_set():
            if self._requests.waiting():
                request = self._requests.take()  # gathered before it started
            else:
                # Back here after about a chunk, as between two chunks of its own: a stop is seen as soon.
                request, _ = self.hot_path.serve(CHUNK_SECONDS)
            if request is not None:
                # Nothing but a read is carried out while stepping (requests to drive are refused): no answer waits.
                self.responder.send(request, self.responder.respond(request))
        if self.sim.long_control is long:
            self.hot_path.end_long_control()  # stopped: ended in C++, answered here
        if long.failure is not None:
            return self.responder.error_answer(internal_error(long.failure))
        if long.taken < long.steps:
            if not self.hot_path.stopped_at_stop_after:
                return self.responder.error_answer(long.stopped())
            self._stop_after_reached = True
            return self.responder.error_answer(long.stopped(f": --stop-after {self.stop_after:g} s reached"))
        return long.answer() if long.answer is not None else self.responder.round_answer(long.steps)

    def _done(self, stepped_to: float | None) -> bool:
        if self._stop_after_reached or self.hot_path.stopped_at_stop_after:
            return True
        if self.exit_on_session_end and self.sim.session_ended.is_set():
            return True
        return stepped_to is not None and self.stop_after is not None and stepped_to >= self.stop_after

    def _run_shared(self, stop: threading.Event, poll_timeout: float) -> None:
        rounds = self.sim.sessions.rounds
        try:
            while not stop.is_set():
                # Wake for the next lease that can lapse: a lapsed controller must not hold the others back.
                lapse_in = self.sim.sessions.next_lapse_in()
                wait = poll_timeout if lapse_in is None else min(poll_timeout, lapse_in + 0.001)
                first, self._admitted = self._admitted, None
                # A round completed here (by a controller that left, or a Control applied here) is stepped by the
                # hot path before the requests waiting are served, as one it completes.
                complete = self.sim.round_complete()
                if first is not None or ((not self._requests.waiting() or complete) and self.hot_path.ready()):
                    request = self._served_by_hot_path(wait, first)
                    if request is _DONE:
                        return
                else:
                    request = self._requests.next(wait)
                if request is None:
                    self._closed.release()
                elif self._to_hot_path(request):
                    self._closed.saw(request)
                    self._admitted = request  # served first by the hot path, joining its round there
                else:
                    self._closed.saw(request)
                    answer = self.responder.respond(request)
                    if answer.admitted:
                        self._admitted = request  # served first by the hot path, which may join it to a round
                    elif answer.held:
                        rounds.attach(request)  # answered with its round, here or by the hot path
                    else:
                        self.responder.send(request, answer)
                self.sim.lapse_leases()
                stepped_to = self._step_when_complete(stop)
                if self._done(stepped_to):
                    return
        finally:
            self.hot_path.end_long_control()
            for request in rounds.release():
                self.responder.send(request, self.responder.error_answer(_STOPPED))

    def _step_when_complete(self, stop: threading.Event) -> float | None:
        """Step once every controller's Control has arrived and answer each; the time stepped to, if stepped.

        A complete round is the hot path's: it steps the round first thing in its next run. Only one it cannot take
        is stepped here: the simulation failed to settle for it, and its failure is answered as a failing step's.
        """
        if not self.sim.round_complete() or self.hot_path.ready():
            return None
        starts = self.sim.starts
        peers, steps, requests = self.sim.sessions.take_round()
        try:
            steps = self.sim.take_round(steps, peers)
            if self.sim.long_control is not None:
                answer = self._step_long_control(stop)
            else:
                answer = self.responder.round_answer(steps)
        except Exception as error:  # a failing simulation must not take the server down
            log.exception("internal error while stepping the controllers' Controls")
            self.sim.stats.errors_sent += len(requests)
            failed = self.responder.error_answer(internal_error(error))
            for request in requests:
                self.responder.send(request, failed)
            return None
        # Requests of controllers that left while waiting were dropped: their peers are gone.
        return self._answer_when_due(requests, answer, self.sim.starts != starts, stop)
