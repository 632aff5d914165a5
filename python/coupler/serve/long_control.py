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

The native hot path takes the chunks of the Controls it serves itself
(`coupler.serve.hot_path`, `coupler.serve.world_hot_path`). A Control that
Python serves (one asking for images, whose images Python renders; a round
completed in Python; a Control for every world Python checked) is applied in
C++ and handed to the loop as HELD, with `SimulationServer.long_control`
set to take its chunks in C++ one call each (`LongControl.chunk`,
`take_chunks`), through the C++ object of the loop's hot path, or of the
loop where it has none (`coupler.serve.native_control_step`,
`coupler.serve.native_world_step`).
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
    # Its answer once its steps are taken: None for the simulation's state (a Control for every world answers
    # from every world's).
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
    last (it serves whatever waits and returns False to stop early); True when every step was taken."""
    assert control.chunk is not None
    while control.chunk():
        if not between():
            return False
    return control.taken == control.steps
