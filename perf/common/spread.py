"""A figure over repeated measurements: its median, and how far the lowest and
highest repetition strayed from it."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def median_or_none(values: Sequence[float]) -> float | None:
    """The median of `values` (of an even count, the mean of the middle two); None for none."""
    return statistics.median(values) if values else None


@dataclass(frozen=True)
class Spread:
    """The median of one figure over the repetitions, and the lowest and highest repetition's."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float | None]) -> Spread | None:
        """None when any repetition has no such figure."""
        if not values or any(value is None for value in values):
            return None
        # "lower" keeps the median a figure some repetition measured.
        return cls(float(np.quantile(values, 0.5, method="lower")), float(min(values)), float(max(values)))

    @classmethod
    def from_json(cls, figure: dict[str, float] | float | None) -> Spread | None:
        """A figure as results store it: {"median", "low", "high"}; a bare number (a result written before
        figures had spreads) is a spread of one; None stays None."""
        if figure is None:
            return None
        if isinstance(figure, (int, float)):
            return cls(float(figure), float(figure), float(figure))
        return cls(figure["median"], figure["low"], figure["high"])
