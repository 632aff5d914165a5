"""perf.rtt's repetitions: the runs of one row (or floor) summarised as
medians with their spread.

Each repetition measures every row and its floor once, in turn, so on a
shared machine a row and its floor live through the same swings of load;
the median over repetitions is what a run reports, the lowest and highest
say how far one repetition could stray from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from perf.common.latency import Latency
from perf.common.spread import Spread
from perf.rtt.measure import FloorSpec, RowSpec, Run


@dataclass
class Measured:
    """A row or a floor over all its repetitions."""

    spec: RowSpec | FloorSpec
    runs: list[Run] = field(repr=False)

    def __post_init__(self) -> None:
        if not self.runs:
            raise ValueError(f"{self.spec.label()}: no runs to summarise")

    @property
    def samples(self) -> np.ndarray:
        """Every repetition's timed round trips together: the tail percentiles and the plot read these."""
        return np.concatenate([run.samples for run in self.runs])

    @property
    def latency(self) -> Latency:
        return Latency.of(self.samples)

    def _spread(self, figure: str) -> Spread:
        """A figure every run has, over the runs."""
        spread = Spread.of([getattr(run, figure) for run in self.runs])
        assert spread is not None, f"a run of {self.spec.label()} has no {figure}"
        return spread

    @property
    def p50(self) -> Spread:
        return self._spread("p50")

    @property
    def round_trips_per_second(self) -> Spread:
        return self._spread("round_trips_per_second")

    @property
    def server_cpu_us(self) -> Spread | None:
        return Spread.of([run.server_cpu_us for run in self.runs])

    @property
    def client_cpu_us(self) -> Spread:
        return self._spread("client_cpu_us")

    @property
    def server_idle_cpu_percent(self) -> float | None:
        """The highest repetition's, so a server that spins even once shows."""
        idle = [run.server_idle_cpu_percent for run in self.runs]
        return None if any(value is None for value in idle) else max(idle)

    @property
    def frame_bytes(self) -> tuple[int, int]:
        """(request, reply) bytes of the first repetition, which its floor is measured with."""
        return self.runs[0].request_bytes, self.runs[0].reply_bytes
