"""A figure over repeated measurements: its median, and how far the lowest and
highest repetition strayed from it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


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
