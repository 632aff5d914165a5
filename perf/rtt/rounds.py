"""perf.rtt's rounds: a row's round trips split into rounds that alternate
with its floor's, and the rounds of each side pooled into one figure.

On a shared machine the load swings within a minute; a row and its floor
taking turns round by round live through the same swings, so their ratio
holds where two back-to-back runs would each catch a different moment.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from perf.common.errors import BenchmarkError
from perf.common.latency import Latency
from perf.rtt.measure import Floor, Row

log = logging.getLogger(__name__)


def round_counts(count: int, rounds: int) -> list[int]:
    """`count` round trips split into `rounds` near-equal shares, the larger ones first."""
    if rounds < 1 or count < rounds:
        raise ValueError(f"cannot split {count} round trips into {rounds} rounds of at least one")
    share, extra = divmod(count, rounds)
    return [share + (1 if index < extra else 0) for index in range(rounds)]


class _Timed(Protocol):
    samples: np.ndarray
    round_trips_per_second: float


def _pooled_rate(rounds: Sequence[_Timed]) -> float:
    """All rounds' round trips over all their loop time: a slow round weighs by the time it took, as one
    long loop would have."""
    seconds = sum(part.samples.size / part.round_trips_per_second for part in rounds)
    return sum(part.samples.size for part in rounds) / seconds


def _pooled_samples(rounds: Sequence[_Timed]) -> np.ndarray:
    if not rounds:
        raise ValueError("nothing to pool: no rounds")
    return np.concatenate([part.samples for part in rounds])


def pool_rows(rounds: Sequence[Row]) -> Row:
    """One row from its rounds: the latency of every round's samples, the server's CPU time summed over the
    Controls it answered in all of them, and the highest idle CPU, so a server that spins even once shows.
    Frame sizes are the first round's, which its floor is measured with in every round."""
    samples = _pooled_samples(rounds)
    first = rounds[0]
    sizes = {(part.request_bytes, part.reply_bytes) for part in rounds}
    if len(sizes) > 1:
        # Click's server traces sizes only when they change, and a round of it now and then ends on the
        # trace of its first Control (a few bytes more) rather than the loop's: not worth failing a run over.
        log.warning("%s: frame sizes traced differ between rounds, %s; reporting the first round's",
                    first.spec.label(), ", ".join(f"{request}/{reply}" for request, reply in sorted(sizes)))
    if first.server_round_trips is None or first.server_cpu_us_per_round_trip is None:
        round_trips, cpu_per_round_trip = None, None
    else:
        round_trips = sum(part.server_round_trips for part in rounds)
        cpu_us = sum(part.server_cpu_us_per_round_trip * part.server_round_trips for part in rounds)
        cpu_per_round_trip = cpu_us / round_trips
    return Row(
        spec=first.spec,
        latency=Latency.of(samples),
        round_trips_per_second=_pooled_rate(rounds),
        request_bytes=first.request_bytes,
        reply_bytes=first.reply_bytes,
        server_cpu_us_per_round_trip=cpu_per_round_trip,
        server_round_trips=round_trips,
        server_idle_cpu_percent=max(part.server_idle_cpu_percent for part in rounds),
        samples=samples,
    )


def pool_floors(rounds: Sequence[Floor]) -> Floor:
    """One floor from its rounds: the latency of every round's samples and their combined rate."""
    samples = _pooled_samples(rounds)
    specs = {part.spec for part in rounds}
    if len(specs) > 1:
        raise BenchmarkError(f"floor rounds of different kinds: {sorted(spec.label() for spec in specs)}")
    return Floor(rounds[0].spec, Latency.of(samples), _pooled_rate(rounds), samples)
