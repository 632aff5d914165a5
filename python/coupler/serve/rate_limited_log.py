"""Log lines that peers trigger, at a bounded rate.

A peer can send as many bad frames, refused Controls or goodbyes as it
likes; each would log a line. Lines are counted per kind: the first `burst`
of a kind in each `interval` are logged, the rest are only counted, and the
next line of that kind logged says how many were left out. The C++ ZAP
handler bounds CURVE refusals the same way (one line a minute per client).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

DEFAULT_BURST = 10
DEFAULT_INTERVAL = 60.0


@dataclass
class _Window:
    started: float
    logged: int = 0
    left_out: int = 0


class RateLimitedLog:
    """Logs to `logger` at most `burst` lines of each kind per `interval` seconds (measured by `clock`)."""

    def __init__(self, logger: logging.Logger, burst: int = DEFAULT_BURST, interval: float = DEFAULT_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if burst < 1 or not interval > 0:
            raise ValueError(f"burst must be at least 1 and interval positive, got {burst} and {interval}")
        self.logger = logger
        self.burst = burst
        self.interval = interval
        self.clock = clock
        self._windows: dict[tuple[int, str], _Window] = {}  # keyed by level and format string: a fixed, small set

    def log(self, level: int, message: str, *args: object) -> None:
        """Log `message % args` at `level` unless this kind (level and `message`) has had its `burst` this interval."""
        if not self.logger.isEnabledFor(level):
            return
        now = self.clock()
        kind = (level, message)
        window = self._windows.get(kind)
        if window is None or now - window.started >= self.interval:
            left_out = window.left_out if window is not None else 0
            window = self._windows[kind] = _Window(now)
            if left_out:
                self.logger.log(level, "%d more like the next line were left out in the last %g s",
                                left_out, self.interval)
        if window.logged >= self.burst:
            window.left_out += 1
            return
        window.logged += 1
        self.logger.log(level, message, *args)

    def info(self, message: str, *args: object) -> None:
        self.log(logging.INFO, message, *args)

    def warning(self, message: str, *args: object) -> None:
        self.log(logging.WARNING, message, *args)
