"""Where a controller's time goes: send-to-reply intervals, time inside receive
calls, and (when polling) time slept between polls.

Round trips are counted in logarithmic bins 1 % wide rather than kept one by
one, so the statistics of a controller that runs for days take the same
19 KiB as those of one that runs for a second; a percentile is then exact to
within 1 %. The C++ coupler::RoundTripStats bins the same way.
"""

from __future__ import annotations

import math

import numpy as np

# Bin i counts round trips in [LOWEST * RATIO**i, LOWEST * RATIO**(i + 1)); the first and last bins
# also take anything below or above the range.
LOWEST = 1e-7  # s
HIGHEST = 1e3  # s
RATIO = 1.01
_LOG_RATIO = math.log(RATIO)
BINS = math.ceil(math.log(HIGHEST / LOWEST) / _LOG_RATIO)


def bin_of(seconds: float) -> int:
    if seconds <= LOWEST:
        return 0
    return min(int(math.log(seconds / LOWEST) / _LOG_RATIO), BINS - 1)


class RoundTripStats:
    def __init__(self) -> None:
        self._bins = np.zeros(BINS, dtype=np.int64)
        self.clear()

    def clear(self) -> None:
        self._bins[:] = 0
        self.count = 0
        self.send_to_reply = 0.0  # s, summed over every round trip
        self.min = math.inf
        self.max = 0.0
        self.blocked = 0.0  # s inside receive calls
        self.idle = 0.0  # s slept between polls

    def add_round_trip(self, seconds: float) -> None:
        self._bins[bin_of(seconds)] += 1
        self.count += 1
        self.send_to_reply += seconds
        self.min = min(self.min, seconds)
        self.max = max(self.max, seconds)

    def percentile(self, fraction: float) -> float:
        """The fraction-th round trip (0.5 = median), in seconds, within 1 %; 0 when empty.

        The smallest and largest are exact; any other rank's bin answers with
        its geometric middle, held within those two.
        """
        if self.count == 0:
            return 0.0
        rank = round(fraction * (self.count - 1))
        # The extremes are known exactly.
        if rank == 0:
            return self.min
        if rank >= self.count - 1:
            return self.max
        index = int(np.searchsorted(np.cumsum(self._bins), rank, side="right"))
        middle = LOWEST * RATIO ** (index + 0.5)
        return min(max(middle, self.min), self.max)

    def report(self, total: float, polling: bool) -> str:
        """The figures as aligned text lines; `total` is the wall time they cover."""
        lines = [
            f"round trips:             {self.count}",
            f"receive mode:            {'non-blocking polling' if polling else 'blocking'}",
            f"blocked in receive:      {self.blocked:.6f} s",
        ]
        if polling:
            lines.append(f"waiting between polls:   {self.idle:.6f} s")
        lines += [
            f"send to reply (sum):     {self.send_to_reply:.6f} s",
            f"total:                   {total:.6f} s",
            f"round trips per second:  {self.count / total if total > 0 else 0.0:.1f}",
            f"round trip p50:          {self.percentile(0.5) * 1e6:.1f} us",
            f"round trip p99:          {self.percentile(0.99) * 1e6:.1f} us",
        ]
        return "\n".join(lines)
