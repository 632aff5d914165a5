"""Control values whose actuator controls come out exactly as given: Gymnasium's actions are raw `ctrl`."""

from __future__ import annotations

import numpy as np

# One step of the search moves a value by one float spacing; the first guess is at most a few away.
_MAX_ADJUSTMENTS = 8


def values_for_controls(controls: np.ndarray, scale: np.ndarray, divisor: np.ndarray) -> np.ndarray:
    """Per control, a value v with `v * scale / divisor == control` bit for bit (the server's scatter computes
    that), where one exists; else the nearest.

    `controls * divisor / scale` misses by one rounding in about one case of six: a value that misses moves one
    float spacing at a time, towards its control, at most `_MAX_ADJUSTMENTS` times.
    """
    values = np.array(controls * divisor / scale, dtype=np.float64)
    flat = values.reshape(-1)
    wanted, scales, divisors = (np.broadcast_to(x, values.shape).reshape(-1) for x in (controls, scale, divisor))
    # Only the values that miss are searched: a value once exact stays as it is.
    moving = np.flatnonzero(flat * scales / divisors != wanted)
    went_up = went_down = np.zeros(moving.size, dtype=bool)
    for adjustment in range(_MAX_ADJUSTMENTS):
        if not moving.size:
            break
        made = flat[moving] * scales[moving] / divisors[moving]
        low, high = made < wanted[moving], made > wanted[moving]
        # A positive factor moves the control the way the value moves; a negative one, the other way.
        positive = scales[moving] / divisors[moving] > 0
        up, down = np.where(positive, low, high), np.where(positive, high, low)
        # v * scale / divisor is monotonic in v: a value that turns back has no exact one and swings between its
        # two neighbours from now on, so where it ends after the last adjustment follows from how many are left.
        turned = (up & went_down) | (down & went_up)
        if (_MAX_ADJUSTMENTS - adjustment) % 2 == 0:
            up, down = up & ~turned, down & ~turned  # an even number of swings left: it stays where it is
        flat[moving[up]] = np.nextafter(flat[moving[up]], np.inf)
        flat[moving[down]] = np.nextafter(flat[moving[down]], -np.inf)
        going = (up | down) & ~turned
        moving, went_up, went_down = moving[going], up[going], down[going]
    return values
