"""Wall-clock pacing for a simulation: when the next step is due."""

from __future__ import annotations

import time

from coupler.serve.timer_slack import tighten_timer_slack

# Seconds a paced answer may wait while nobody else is served; a longer wait serves the others meanwhile.
LONGEST_HOLD = 0.05


class RunClock:
    """Maps simulated time to wall time from an anchor set when a run (re)starts.

    `speed` is the wanted real-time factor (1.0 = real time); None means as
    fast as possible, and then nothing is ever late or early. A paced clock
    tightens the process's timer slack (`coupler.serve.timer_slack`), so that its
    sleeps end when they should.
    """

    def __init__(self, speed: float | None = 1.0) -> None:
        if speed is not None and speed <= 0:
            raise ValueError(f"speed must be positive, got {speed}")
        self.speed = speed
        if speed is not None:
            tighten_timer_slack()
        self._wall0 = 0.0
        self._sim0 = 0.0
        self.deadlines_missed = 0

    def anchor(self, simulated_time: float, ago: float = 0.0) -> None:
        """Start pacing from now (or `ago` seconds before now), at this simulated time."""
        self._wall0 = time.monotonic() - ago
        self._sim0 = simulated_time

    def due_in(self, simulated_time: float) -> float:
        """Seconds until the wall clock reaches this simulated time (negative when late)."""
        if self.speed is None:
            return 0.0
        return self._wall0 + (simulated_time - self._sim0) / self.speed - time.monotonic()

    def wait_until(self, simulated_time: float, late_after: float) -> None:
        """Sleep (never spin) until this simulated time is due on the wall clock.

        Counts a missed deadline when the step is already more than
        `late_after` seconds past its slot.
        """
        delay = self.delay_until(simulated_time, late_after)
        if delay > 0:
            time.sleep(delay)

    def delay_until(self, simulated_time: float, late_after: float) -> float:
        """Seconds to wait until this simulated time is due; 0 when due, counting a missed deadline when late.

        Late means more than `late_after` seconds past its slot.
        """
        delay = self.due_in(simulated_time)
        if delay > 0:
            return delay
        if -delay > late_after:
            self.deadlines_missed += 1
        return 0.0
