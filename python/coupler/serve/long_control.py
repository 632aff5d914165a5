"""Long Controls: a Control asking for many steps is stepped in short chunks, so that nobody waits for it.

The cap on `steps` (100,000) counts steps, not time: on a heavy model one
Control could hold the serving thread for minutes. Under a lockstep loop
its steps are taken in C++ in chunks of about `CHUNK_SECONDS` each, sized by
`coupler::StepChunks` (coupler/serve/step_chunks.hpp), the loop answering
everyone else's requests and looking for a stop between chunks, and the
Control is answered once, at the end (or SessionEnded where `--stop-after`
or a stop cuts it). A reader is answered with the state as of the last
completed chunk. While one is stepped, `SimulationServer.long_control` says
so, and requests to drive are refused.

The native hot path takes the chunks of every long Control
(`coupler.serve.hot_path`, `coupler.serve.world_hot_path`): of those it
serves itself, and of those Python answers (one asking for images, whose
images Python renders; a round completed in Python; a Control for every
world Python checked). Such a Control is applied in C++ by the loop's hot
path (`coupler.serve.native_control_step`, `coupler.serve.native_world_step`)
and handed to the loop as HELD, mirrored in `SimulationServer.long_control`;
the loop lets the hot path take its chunks as its own, serving what it
hands back between them, and answers it once C++ reports its last step
taken (`LockstepLoop._step_long_control`).
"""

from __future__ import annotations

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
    # The loop answers it (C++ takes its chunks, and returns once the last is taken).
    answered_here: bool = False
    # One the loop answers: its answer once its steps are taken (None for the simulation's state; a Control for
    # every world answers from every world's).
    answer: Callable[[], Any] | None = None
    # Why its steps failed in C++ (the simulation's state is then unknown); None while they have not.
    failure: str | None = None

    def stopped(self, why: str = "") -> ErrorMessage:
        """The answer to its Controls when the server stops before the last step (`why`: a reason to add)."""
        return ErrorMessage(
            code=ErrorCode.SESSION_ENDED,
            text=f"server stopped after {self.taken} of the {self.steps} steps this Control asked for{why}",
        )

