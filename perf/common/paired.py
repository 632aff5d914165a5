"""Figures of two things measured alternately (A B A B ...), and the checks
that tell a measured figure from noise.

On a shared machine the cost of a round trip drifts with the load of the
moment, so a row and its floor measured minutes apart can differ by more
than the row's whole overhead. Measured in alternating slices, each slice
of a row has a slice of its floor beside it that lived through the same
load: the ratio (or difference) of the two is taken slice by slice, and a
run reports the median of those with the lowest and highest. A figure whose
spread says nothing is reported as not measured rather than judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from perf.common.spread import Spread

NOISY = "not measured: noisy"
# A row whose median ratio to its floor is below this is faster than its floor by more than any measurement
# error a round trip that does at least the floor's work allows: whatever its spread says, the machine's
# condition moved between the two (see docs/performance.md), so the figure is not judged.
LOWEST_RATIO = 0.95
# The most a ratio's middle slices (all but the lowest and the highest) may spread, as a fraction of the lowest
# of them, for its median to be read as a measurement. In quiet runs the middle slices of every ratio lay within
# 11 % of each other (the C++ static row, whose floor reads two values, docs/performance.md), within 6 % in the
# full run; in a short run a neighbour's load slowed for seconds, ratios read 1.75-4.15 and 2.88-3.52.
MOST_MIDDLE_SPREAD = 0.20
# From this many slices the lowest and the highest are set aside: a median of five or more is not moved by one
# stray slice each way, and short runs on a shared machine have one now and then (a 0.59 among 1.22-1.34).
MIDDLE_FROM = 5


def _paired(ours: Sequence[float | None], theirs: Sequence[float | None]) -> None:
    if len(ours) != len(theirs):
        raise ValueError(f"paired figures need as many slices on both sides, got {len(ours)} and {len(theirs)}")


def ratio(ours: Sequence[float | None], theirs: Sequence[float | None]) -> Spread | None:
    """ours[i] / theirs[i] slice by slice, as a median with the lowest and highest; None when a slice lacks
    a figure or the other side's is not positive."""
    _paired(ours, theirs)
    if any(a is None or b is None or b <= 0 for a, b in zip(ours, theirs)):
        return None
    return Spread.of([a / b for a, b in zip(ours, theirs)])


def difference(ours: Sequence[float | None], theirs: Sequence[float | None]) -> Spread | None:
    """ours[i] - theirs[i] slice by slice, as a median with the lowest and highest; None when a slice lacks
    a figure."""
    _paired(ours, theirs)
    if any(a is None or b is None for a, b in zip(ours, theirs)):
        return None
    return Spread.of([a - b for a, b in zip(ours, theirs)])


def bounds_of_ratio(ours: Spread | None, theirs: Spread | None) -> Spread | None:
    """The ratio of two figures not measured alternately: of their medians, with the widest it could be
    (lowest over highest, highest over lowest) as its spread."""
    if ours is None or theirs is None or min(theirs.median, theirs.low) <= 0:
        return None
    return Spread(ours.median / theirs.median, ours.low / theirs.high, ours.high / theirs.low)


def width(spread: Spread) -> float:
    """How far apart the lowest and highest slice are."""
    return spread.high - spread.low


def below_floor(ratio_to_floor: Spread) -> bool:
    """A row faster than its own floor: by more than the spread of its ratio, or with a median below
    LOWEST_RATIO whatever the spread (a wide spread reaching 1 does not make 0.91 a measurement). Impossible
    for a round trip that does at least what the floor does, so the measurement, not the row, is off."""
    return ratio_to_floor.median < LOWEST_RATIO or 1.0 - ratio_to_floor.median > width(ratio_to_floor)


def middle(slices: Sequence[float]) -> Spread:
    """The slices a median rests on, as their median with the lowest and highest: all but the lowest and the
    highest slice from MIDDLE_FROM slices on, every slice below that."""
    if not slices:
        raise ValueError("no slices")
    ordered = sorted(slices)
    if len(ordered) >= MIDDLE_FROM:
        ordered = ordered[1:-1]
    spread = Spread.of(ordered)
    assert spread is not None
    return spread


def spread_wide(slices: Sequence[float]) -> bool:
    """Whether a ratio's middle slices spread more than MOST_MIDDLE_SPREAD: slices that far apart are
    measurements of different conditions of the machine, and their median is one of them, not the row's."""
    spread = middle(slices)
    return spread.high > spread.low * (1.0 + MOST_MIDDLE_SPREAD)


def negative(cost: Spread) -> bool:
    """A cost below zero by more than its spread: a feature cannot make a round trip cheaper, so the
    measurement is off."""
    return -cost.median > width(cost)


def crosses(spread: Spread, limit: float) -> bool:
    """Whether some slices fall on one side of `limit` and some on the other, so the figure cannot say
    which side it is on."""
    return spread.low < limit < spread.high


class Judgement(Enum):
    MET = "met"
    MISSED = "missed"
    NOISY = NOISY


def at_most(figure: Spread, limit: float) -> Judgement:
    """A figure that must not exceed `limit`: noisy when its spread crosses the limit."""
    if crosses(figure, limit):
        return Judgement.NOISY
    return Judgement.MET if figure.median <= limit else Judgement.MISSED


def at_least(figure: Spread, limit: float) -> Judgement:
    """A figure that must reach `limit`: noisy when its spread crosses the limit."""
    if crosses(figure, limit):
        return Judgement.NOISY
    return Judgement.MET if figure.median >= limit else Judgement.MISSED


def ratio_to_floor(ratio_to_floor: Spread, limit: float) -> Judgement:
    """A row's ratio to its floor against its limit: noisy when the row reads faster than the floor
    (below_floor), or when the spread crosses the limit."""
    if below_floor(ratio_to_floor):
        return Judgement.NOISY
    return at_most(ratio_to_floor, limit)
