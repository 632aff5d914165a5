"""Control values whose actuator controls come out exactly as given: Gymnasium's actions are raw `ctrl`."""

from __future__ import annotations

import numpy as np

# One step of the search moves a value by one float spacing; the first guess is at most a few away.
_MAX_ADJUSTMENTS = 8


def values_for_controls(controls: np.ndarray, scale: np.ndarray, divisor: np.ndarray) -> np.ndarray:
    """Per control, a value v with `v * scale / divisor == control` bit for bit (the server's scatter computes
    that), where one exists; else the nearest.

    `controls * divisor / scale` misses by one rounding in about one case of six.
    """
    values = controls * divisor / scale
    for _ in range(_MAX_ADJUSTMENTS):
        made = values * scale / divisor
        low, high = made < controls, made > controls
        if not (low.any() or high.any()):
            break
        # A positive factor moves the control the way the value moves; a negative one, the other way.
        up = np.where(scale / divisor > 0, low, high)
        down = np.where(scale / divisor > 0, high, low)
        values = np.where(up, np.nextafter(values, np.inf), np.where(down, np.nextafter(values, -np.inf), values))
    return values
