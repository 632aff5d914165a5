"""Watching a server's traffic without slowing it: the observer (the publisher
`coupler serve --record` and `--publish` share, a `NativePublisher`) sees
every request frame, every answer frame and the simulation after every step.

In lockstep it sees the state after every Control's steps. A free run steps
on its own clock, maybe thousands of times a wall second with nobody asking:
the observer sees the state after a step while that keeps to
`FREE_RUN_STATES_PER_SECOND` on average, in bursts of up to
`FREE_RUN_STATE_BURST` (a token bucket, `coupler._native.FreeRunStates`,
shared with the C++ hot path), and the last state when the server stops. A run at real time with a time step of 1 ms or more shows every
step, the steps a server takes to catch up after a stall included; one
running faster (`--speed`, or as fast as it can) shows at most a thousand a
wall second: more than a view draws or a rendering samples, for a few
milliseconds of the serving thread's time a second.

A serving loop knows nothing of observers. `observed(responder, observer)`
wraps a Responder so that each request, answer and step it serves in Python
is reported; the C++ hot paths serve under the wrapper, publishing on the
observer's `native` publisher themselves what the wrapper would report (see
`coupler.serve.hot_path`, and `coupler.serve.world_hot_path` for a batch of
worlds, whose Controls asking for images are the wrapper's). Without an observer nothing is wrapped. The
reports run on the serving thread: the publisher only hands each message to
ZeroMQ.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from coupler import _native
from coupler.wire.codec import encode
from coupler.wire.messages import ErrorMessage
from coupler.serve.responder import Answer, Responder
from coupler.serve.simulation import Simulation

# The free-run states an observer sees: this many a wall second on average, at most this many in a row.
FREE_RUN_STATES_PER_SECOND = 1000.0
FREE_RUN_STATE_BURST = 250.0


class NativePublisher(Protocol):
    """The observer: every report is a message on `native`, a `coupler._native.FramePublisher`, on which the
    C++ hot path, which never comes back to Python for a Control it answers, publishes itself exactly what this
    observer would (`coupler.record.publisher.FramePublisher`)."""

    native: Any

    def on_request(self, frame: bytes, peer: bytes, wall: float) -> None:
        """A valid request frame from `peer`, received at `wall` (time.time(), seconds)."""
        ...

    def on_answer(self, frame: bytes, peer: bytes, wall: float, simulated_time: float | None) -> None:
        """An answer frame sent to `peer`; `simulated_time` is set when it carries the state after a step."""
        ...

    def on_step(self, simulation: Simulation, step: int, wall: float) -> None:
        """The simulation has just stepped to step number `step` (every step in lockstep, a free run's at the pace
        of `FREE_RUN_STATES_PER_SECOND`); read what is needed now: it changes with the next step."""
        ...


def _frame(item: Any) -> bytes:
    """The bytes of a request or reply, whichever responder made it (native: frames; reference: messages)."""
    if isinstance(item, bytes):
        return item
    if isinstance(item, (bytearray, memoryview)):
        return bytes(item)
    frame = getattr(item, "frame", None)
    if frame is not None:
        return bytes(frame)
    return encode(getattr(item, "message", item))


class ObservedResponder:
    """A Responder that reports to `observer` what `inner` receives, answers and steps in Python."""

    def __init__(self, inner: Responder, observer: NativePublisher) -> None:
        self.inner = inner
        self.observer = observer
        self.sim = inner.sim
        self.endpoint = inner.endpoint
        # The free-run states the observer sees (the C++ hot path takes steps by the same count).
        self.free_run_states = _native.FreeRunStates(FREE_RUN_STATES_PER_SECOND, FREE_RUN_STATE_BURST)

    def receive(self, timeout: float) -> Any | None:
        return self.inner.receive(timeout)

    def try_receive(self) -> Any | None:
        return self.inner.try_receive()

    def take_closed_peers(self) -> list[bytes]:
        return self.inner.take_closed_peers()

    def respond(self, request: Any) -> Answer:
        received = time.time()
        steps = self.sim.stats.steps
        answer = self.inner.respond(request)
        if answer.admitted:
            return answer  # the hot path serves it, and publishes it as it does every Control
        self.observer.on_request(_frame(request), request.peer, received)
        if self.sim.stats.steps != steps:
            self.observer.on_step(self.sim.simulation, self.sim.stats.steps, time.time())
        return answer

    def round_answer(self, steps: int) -> Answer:
        self.observer.on_step(self.sim.simulation, self.sim.stats.steps, time.time())
        return self.inner.round_answer(steps)

    def error_answer(self, error: ErrorMessage) -> Answer:
        return self.inner.error_answer(error)

    def send(self, request: Any, answer: Answer) -> None:
        self.inner.send(request, answer)
        if answer.reply is not None:
            self.observer.on_answer(_frame(answer.reply), request.peer, time.time(), answer.simulated_time)

    def close(self) -> None:
        if self.free_run_states.unseen:
            # The state the run ended in: a recording ends where the run did.
            self.free_run_states.seen()
            self.observer.on_step(self.sim.simulation, self.sim.stats.steps, time.time())
        self.inner.close()

    def __enter__(self) -> ObservedResponder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def observed(responder: Responder, observer: NativePublisher | None) -> Responder:
    """`responder` itself without an observer, else it wrapped so that `observer` sees its traffic.

    An observer records or publishes the frames themselves, so their images must be in them: a responder
    observed offers no shared memory (the "shm" extension), and images travel through the socket."""
    if observer is None:
        return responder
    if getattr(responder, "shared_images", None) is not None:
        responder.shared_images = None  # type: ignore[attr-defined]
    return ObservedResponder(responder, observer)  # type: ignore[return-value]
