"""One clock through a recording of several runs: where each state lies when the runs play one after the other.

A Reset starts a run again from its keyframe, so simulated time goes back
(the demo's recording holds two controllers' runs, both from 0 s). Looked up
by simulated time, such a recording mixes its runs; on this clock each run
follows the one before, one step after its last state, and a recording of
one run is its simulated time itself. `coupler view` plays and seeks on it,
and `coupler render` takes its --start and --end on it.
"""

from __future__ import annotations


class RunTimeline:
    """Positions on the clock of states given in the order recorded (`position(simulated_time)`)."""

    def __init__(self) -> None:
        self._offset = 0.0  # what the runs before this one add to its simulated times
        self._last: float | None = None  # the simulated time of the state before
        self._step = 0.0  # the last gap between two states of a run: where the next run starts after it

    def position(self, simulated_time: float) -> float:
        """The position of the next state, of simulated time `simulated_time`."""
        if self._last is not None:
            if simulated_time < self._last:
                self._offset += self._last - simulated_time + self._step
            elif simulated_time > self._last:
                self._step = simulated_time - self._last
        self._last = simulated_time
        return simulated_time + self._offset
