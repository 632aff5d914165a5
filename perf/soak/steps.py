"""perf.soak's round-trip check: in lockstep every Control steps the
simulation exactly once, so every SensorMessage's simulated time must be one
time step after the one before. A jump of several steps means round trips
were lost; the same time again means one was answered twice."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# Relative to the time step. The times are doubles on the wire; after a
# million 2 ms steps their rounding error is ~1e-10 of a step, far below this.
DEFAULT_TOLERANCE = 1e-6
# Anomalies described one by one; beyond these only the counts grow, so a
# broken run cannot fill the client's memory.
KEPT_ANOMALIES = 20

GAP = "gap"
REPEAT = "repeat"
IRREGULAR = "irregular"


@dataclass(frozen=True)
class StepAnomaly:
    round_trip: int  # 1-based, counted from the first Control of the soak loop
    previous: float  # s, simulated time of the reply before
    time: float  # s, simulated time of this reply
    kind: str  # GAP, REPEAT or IRREGULAR


class StepCheck:
    """Checks each reply's simulated time against the one before, in O(1) per round trip.

    `start_time` is the simulated time before the first Control of the loop
    (a SensorRequest answers it without stepping), so the first reply is
    checked like every other.
    """

    def __init__(self, time_step: float, start_time: float, tolerance: float = DEFAULT_TOLERANCE) -> None:
        if not time_step > 0:
            raise ValueError(f"the time step must be positive, got {time_step}")
        if not 0 < tolerance < 0.5:
            raise ValueError(f"the tolerance must be a fraction of a step between 0 and 0.5, got {tolerance}")
        self.time_step = time_step
        self.start_time = start_time
        self.tolerance = tolerance
        self.round_trips = 0
        self.lost = 0  # steps the client saw no reply for
        self.duplicated = 0  # replies that repeat the time before
        self.irregular = 0  # replies going backwards or by a fraction of a step
        self.anomalies: list[StepAnomaly] = []
        self._previous = start_time
        self._allowed = tolerance * time_step

    def observe(self, time: float) -> None:
        """Check one reply's simulated time; runs once per round trip, so the good case is one comparison."""
        self.round_trips += 1
        if abs(time - self._previous - self.time_step) > self._allowed:
            self._classify(time)
        self._previous = time

    def _classify(self, time: float) -> None:
        advance = time - self._previous
        steps = round(advance / self.time_step)
        if abs(advance) <= self._allowed:
            kind = REPEAT
            self.duplicated += 1
        elif steps >= 2 and abs(advance - steps * self.time_step) <= self._allowed:
            kind = GAP
            self.lost += steps - 1
        else:
            kind = IRREGULAR
            self.irregular += 1
        if len(self.anomalies) < KEPT_ANOMALIES:
            self.anomalies.append(StepAnomaly(self.round_trips, self._previous, time, kind))

    @property
    def passed(self) -> bool:
        return self.lost == 0 and self.duplicated == 0 and self.irregular == 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "round_trips": self.round_trips,
            "time_step": self.time_step,
            "start_time": self.start_time,
            "simulated_time": self._previous,
            "lost": self.lost,
            "duplicated": self.duplicated,
            "irregular": self.irregular,
            "anomalies": [asdict(anomaly) for anomaly in self.anomalies],
        }
