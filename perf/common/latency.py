"""Round-trip time distributions: read from the files the clients write, summarised as percentiles."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perf.common.errors import BenchmarkError

PERCENTILES = {"p50": 0.50, "p90": 0.90, "p99": 0.99, "p99.9": 0.999}


@dataclass(frozen=True)
class Latency:
    """A distribution of round trips, in microseconds."""

    count: int
    p50: float
    p90: float
    p99: float
    p99_9: float
    max: float
    mean: float

    @classmethod
    def of(cls, samples: np.ndarray) -> Latency:
        if samples.size == 0:
            raise BenchmarkError("no round trips were timed")
        # "nearest" picks a measured round trip rather than interpolating one that never happened.
        p50, p90, p99, p99_9 = np.quantile(samples, list(PERCENTILES.values()), method="nearest")
        return cls(
            count=int(samples.size),
            p50=float(p50),
            p90=float(p90),
            p99=float(p99),
            p99_9=float(p99_9),
            max=float(samples.max()),
            mean=float(samples.mean()),
        )


def read_timings(path: Path, expected: int) -> np.ndarray:
    """The round trips a client wrote to `path`, one per line in microseconds; exactly `expected` of them."""
    try:
        samples = np.loadtxt(path, dtype=float, ndmin=1)
    except (OSError, ValueError) as error:
        raise BenchmarkError(f"cannot read timings from {path}: {error}") from None
    if samples.size != expected:
        raise BenchmarkError(f"{path} holds {samples.size} round trips, expected {expected}")
    return samples
