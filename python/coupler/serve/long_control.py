"""Long Controls: a Control asking for many steps is stepped in short chunks, so that nobody waits for it.

The cap on `steps` (100,000) counts steps, not time: on a heavy model one
Control could hold the serving thread for minutes. Its steps are taken in
chunks of about `CHUNK_SECONDS` each, sized by `coupler._native.StepChunks`
(the one rule, coupler/serve/step_chunks.hpp), answering everyone else's
requests and looking for a stop between chunks, and the Control is answered
once, at the end. A reader is answered with the state as of the last
completed chunk. While one is stepped, `SimulationServer.long_control` says
so, and requests to drive are refused.

The native hot path steps a lone controller's long Control, or a round's,
itself (`coupler.serve.hot_path`), the first Control of a run and a paced
one too, and a batched server's lone controller's long Control for every
world (`coupler.serve.world_hot_path`), a newcomer's once admitted too.
One asking for images (whose images Python renders) is handed to a
lockstep loop as HELD, applied in C++, with `SimulationServer.long_control`
set to take its chunks in C++ one call each (`LongControl.chunk`,
`take_chunks`), the loop serving others between two calls; so is a round
completed in Python while the hot path cannot take it, its Controls applied
in C++ already (`NativeControlStep.start_applied_chunks`). Those no hot
path takes (a round where the loop's hot path is a batch's, a Control for
every world the batch checks in Python) go to a lockstep loop that sets
`SimulationServer.chunk_long_controls`: it is handed them as HELD, with the
steps still to take in `SimulationServer.long_control`, and takes them with
`ChunkedSteps`: a round's steps in C++ (`SimulationServer.step_round_chunk`),
a Control for every world through the batch (`LongControl.step`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coupler import _native
from coupler.wire.messages import ErrorCode, ErrorMessage

# A Control asking for more steps than this is stepped in chunks, serving others between them (coupler::StepChunks).
LONG_CONTROL_STEPS: int = _native.StepChunks.FIRST

# Seconds of stepping per chunk: how long a reader, a newcomer or a stop waits at most behind a long Control.
CHUNK_SECONDS: float = _native.StepChunks.SECONDS


@dataclass
class LongControl:
    """A Control (or a round of several controllers' Controls) whose steps are being taken in chunks."""

    peers: list[bytes]  # whose answers wait for the last step
    steps: int  # how many steps it takes in all
    taken: int = 0  # how many of them are taken so far
    # How its steps are taken, and its answer once they are: None for the simulation's own step and state (a
    # Control for every world steps and reads every world).
    step: Callable[[int], None] | None = None
    answer: Callable[[], Any] | None = None
    # Set when C++ takes its chunks (`coupler.serve.native_control_step.NativeControlStep.start_chunks`): `chunk()` takes the next one,
    # counting it in `taken`, and says whether steps remain to take (False once the last is taken, or where
    # --stop-after cuts it); `drop()` forgets it in C++ once it is answered otherwise (a stop).
    chunk: Callable[[], bool] | None = None
    drop: Callable[[], None] | None = None

    def stopped(self, why: str = "") -> ErrorMessage:
        """The answer to its Controls when the server stops before the last step (`why`: a reason to add)."""
        return ErrorMessage(
            code=ErrorCode.SESSION_ENDED,
            text=f"server stopped after {self.taken} of the {self.steps} steps this Control asked for{why}",
        )


def take_chunks(control: LongControl, between: Callable[[], bool]) -> bool:
    """Take the chunks of `control`, stepped in C++ (`control.chunk`), calling `between()` after every chunk but the
    last, as `ChunkedSteps.run` does; True when every step was taken."""
    assert control.chunk is not None
    while control.chunk():
        if not between():
            return False
    return control.taken == control.steps


class ChunkedSteps:
    """Takes many steps through `step(n)`, in chunks of about `chunk_seconds` each (timed by `clock`), as
    `coupler._native.StepChunks` sizes them."""

    def __init__(self, step: Callable[[int], None], chunk_seconds: float = CHUNK_SECONDS,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if not chunk_seconds > 0:
            raise ValueError(f"chunk_seconds must be positive, got {chunk_seconds}")
        self.step = step
        self.chunk_seconds = chunk_seconds
        self.clock = clock
        self.chunks = 0  # chunks taken in all, for tests and summaries

    def run(self, control: LongControl, between: Callable[[], bool], until: int | None = None) -> bool:
        """Take `control`'s remaining steps, or only up to `until` of them in all; call `between()` after every
        chunk but the last.

        `between` serves whatever waits and returns False to stop early.
        Returns True when every step was taken (`control.taken` counts them).
        """
        sizes = _native.StepChunks(self.chunk_seconds)
        step = control.step or self.step
        last = control.steps if until is None else min(until, control.steps)
        while control.taken < last:
            n = sizes.next(last - control.taken)
            started = self.clock()
            step(n)
            sizes.took(n, self.clock() - started)
            control.taken += n
            self.chunks += 1
            if control.taken < last and not between():
                return False
        return control.taken == control.steps
