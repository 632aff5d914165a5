"""Wall-clock pacing for a simulation: when the next step is due."""

from __future__ import annotations

from coupler import _native
from coupler.serve.timer_slack import tighten_timer_slack

# Seconds a paced answer may wait while nobody else is served; a longer wait serves the others meanwhile.
LONGEST_HOLD = 0.05


class RunClock(_native.RunClock):
    """Maps simulated time to wall time (time.monotonic()'s clock) from an anchor set when a run (re)starts.

    The C++ `coupler::RunClock`, the one the hot paths pace their answers and
    a free run's steps by. `speed` is the wanted real-time factor (1.0 = real
    time); None means as fast as possible, and then nothing is ever late or
    early. A paced clock tightens the process's timer slack
    (`coupler.serve.timer_slack`), so that its sleeps end when they should.
    ValueError unless `speed` is positive.
    """

    def __init__(self, speed: float | None = 1.0) -> None:
        if speed is not None and not speed > 0:
            raise ValueError(f"speed must be positive, got {speed}")
        super().__init__(speed)
        if speed is not None:
            tighten_timer_slack()
