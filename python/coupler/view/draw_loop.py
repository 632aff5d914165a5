"""The loop every front end runs: take the state to show, draw it, at most `fps` times a second, until told
to stop; and the counts it keeps (frames drawn, for the draw rate)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from coupler.view.shown_state import ShownState
from coupler.view.view_source import ViewSource



@dataclass
class DrawCounts:
    frames: int = 0  # states drawn
    seconds: float = 0.0  # from the first frame drawn to the end

    @property
    def rate(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    def summary(self) -> str:
        return f"drew {self.frames} frames in {self.seconds:.1f} s ({self.rate:.1f} frames/s)"


def run_draw_loop(source: ViewSource, draw: Callable[[ShownState], None], *, fps: float,
                  stop: threading.Event, each_pass: Callable[[], bool] | None = None,
                  on_status: Callable[[str], None] | None = None, duration: float | None = None) -> DrawCounts:
    """Draw `source`'s states with `draw` until `stop` is set, `duration` seconds have passed or `each_pass()`
    (called every pass, for the front end's own work) returns False; `on_status(line)` for each new status."""
    counts = DrawCounts()
    period = 1.0 / fps
    started = time.monotonic()
    first_frame: float | None = None
    status = ""
    due = started
    while not stop.is_set():
        began = time.monotonic()
        if duration is not None and began - started >= duration:
            break
        # Frames keep to a grid of periods, so that late wake-ups do not lower the rate; a pass later than a
        # whole period starts the grid again rather than drawing the missed frames in a hurry.
        due = max(due + period, began)
        state = source.next_state(period)
        if state is not None:
            draw(state)
            counts.frames += 1
            if first_frame is None:
                first_frame = time.monotonic()
        if source.status != status:
            status = source.status
            if status and on_status is not None:
                on_status(status)
        if each_pass is not None and not each_pass():
            break
        # At most one frame a period: what arrives meanwhile waits in the stream, of which only the newest is drawn.
        left = due - time.monotonic()
        if left > 0:
            stop.wait(left)
    if first_frame is not None:
        counts.seconds = time.monotonic() - first_frame
    return counts
