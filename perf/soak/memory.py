"""perf.soak's memory check: resident memory read from /proc, and whether it
grew by less than a limit from a reference round trip to the end of the run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


KIB_PER_MIB = 1024
DEFAULT_LIMIT_MIB = 5.0
# Growth is measured from here, once start-up allocations, caches and
# allocator pools have settled...
REFERENCE_ROUND_TRIP = 100_000
# ...or, in runs shorter than twice that, from this fraction of the run.
SHORT_RUN_REFERENCE_FRACTION = 0.1


def reference_round_trip(round_trips: int) -> int:
    """The round trip memory growth is measured from, for a run of `round_trips`."""
    if round_trips >= 2 * REFERENCE_ROUND_TRIP:
        return REFERENCE_ROUND_TRIP
    return int(round_trips * SHORT_RUN_REFERENCE_FRACTION)


@dataclass(frozen=True)
class Sample:
    """Resident memory of both processes once `round_trips` of the loop were done."""

    round_trips: int
    seconds: float  # since the first Control of the loop
    server_kib: int
    client_kib: int


@dataclass(frozen=True)
class Growth:
    """One process's resident memory at the start, the reference sample and the end, and the verdict."""

    start_kib: int
    reference_round_trip: int  # of the sample used: the first at or after the reference point
    reference_kib: int
    end_kib: int
    growth_kib: int
    limit_kib: float
    passed: bool


def growth(points: Sequence[tuple[int, int]], reference: int, limit_mib: float) -> Growth:
    """The verdict on (round trips, KiB) points in run order: passed when the last
    exceeds the first point at or after `reference` by less than `limit_mib`."""
    if not points:
        raise ValueError("no memory samples")
    at_reference = next((point for point in points if point[0] >= reference), None)
    if at_reference is None:
        raise ValueError(f"no memory sample at or after round trip {reference} (the last is at {points[-1][0]})")
    end = points[-1][1]
    grown = end - at_reference[1]
    limit_kib = limit_mib * KIB_PER_MIB
    return Growth(
        start_kib=points[0][1],
        reference_round_trip=at_reference[0],
        reference_kib=at_reference[1],
        end_kib=end,
        growth_kib=grown,
        limit_kib=limit_kib,
        passed=grown < limit_kib,
    )
