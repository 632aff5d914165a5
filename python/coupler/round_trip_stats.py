"""Where a controller's time goes: send-to-reply intervals, time inside receive
calls, and (when polling) time slept between polls."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class RoundTripStats:
    round_trips: list[float] = field(default_factory=list)  # s, one per exchange
    blocked: float = 0.0  # s inside receive calls
    idle: float = 0.0  # s slept between polls

    def clear(self) -> None:
        self.round_trips.clear()
        self.blocked = 0.0
        self.idle = 0.0

    @property
    def count(self) -> int:
        return len(self.round_trips)

    def percentile(self, fraction: float) -> float:
        """The fraction-th round trip (0.5 = median), in seconds; 0 when empty."""
        if not self.round_trips:
            return 0.0
        return float(np.quantile(self.round_trips, fraction, method="nearest"))

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
            f"send to reply (sum):     {sum(self.round_trips):.6f} s",
            f"total:                   {total:.6f} s",
            f"round trips per second:  {self.count / total if total > 0 else 0.0:.1f}",
            f"round trip p50:          {self.percentile(0.5) * 1e6:.1f} us",
            f"round trip p99:          {self.percentile(0.99) * 1e6:.1f} us",
        ]
        return "\n".join(lines)
