"""A perf.frequency point's spread without running it again: its timed loop
cut into equal parts, each part's Controls per second.

A point is one controller against one server; a stall of the machine in one
part of the loop and a calm other part average out in the whole loop's
figure, and the parts say how far they strayed."""

from __future__ import annotations

import numpy as np

# Enough parts for a lowest and a highest that are not the whole loop, few enough that a short loop's part
# still holds dozens of Controls.
PARTS = 5


def part_frequencies(round_trips_us: np.ndarray, loop_seconds: float, parts: int = PARTS) -> list[float]:
    """Controls per second in each of `parts` equal parts of a timed loop, from its round trips in order.
    The controller's own time between round trips is not in them: it is spread over the parts in proportion,
    so the parts together take the loop's measured time and their Controls per second bracket the loop's."""
    if round_trips_us.size == 0:
        raise ValueError("a timed loop without round trips has no parts")
    if loop_seconds <= 0:
        raise ValueError(f"a timed loop takes some time, got {loop_seconds} s")
    timed_seconds = float(round_trips_us.sum()) * 1e-6
    scale = loop_seconds / timed_seconds if timed_seconds > 0 else 1.0
    return [part.size / (float(part.sum()) * 1e-6 * scale)
            for part in np.array_split(round_trips_us, min(parts, round_trips_us.size))]
