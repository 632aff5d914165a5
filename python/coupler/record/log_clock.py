"""The log time a recording gives its messages: the wall clock (when the writer received them), or the
simulated time, so that a player (Foxglove) plays the run at the speed of the simulation.

On simulated time a message's log time is the wall time of the recording's first message plus the
simulated time, continued across resets (a Reset that takes the simulation back to 0 s does not take
the log back: the next episode follows the last). A message without a simulated time (a request, a
handshake) takes the log time of the last one that had it.
"""

from __future__ import annotations

WALL = "wall"
SIM = "sim"
LOG_TIMES = (WALL, SIM)


class LogClock:
    def __init__(self, log_time: str = WALL) -> None:
        if log_time not in LOG_TIMES:
            raise ValueError(f"log time is one of {', '.join(LOG_TIMES)}, not {log_time!r}")
        self.simulated = log_time == SIM
        self._origin: int | None = None
        self._offset = 0
        self._last_simulated: int | None = None

    def at(self, wall_ns: int, simulated_ns: int) -> int:
        """The log time, in ns, of a message received at `wall_ns` carrying `simulated_ns` (negative: none)."""
        if not self.simulated:
            return wall_ns
        if self._origin is None:
            self._origin = wall_ns
        if simulated_ns >= 0:
            if self._last_simulated is not None and simulated_ns < self._last_simulated:
                self._offset += self._last_simulated - simulated_ns
            self._last_simulated = simulated_ns
        return self._origin + self._offset + (self._last_simulated or 0)
