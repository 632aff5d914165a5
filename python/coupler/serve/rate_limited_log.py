"""Log lines that peers trigger, at a bounded rate.

A peer can send as many bad frames, refused Controls or goodbyes as it
likes; each would log a line. Lines are counted per kind (level and format
string) by the C++ coupler::RateLimitedLog, which the C++ server uses too:
the first `burst` of a kind in each `interval` are logged, the rest only
counted, and the next line of that kind logged says how many were left out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from coupler import _native

DEFAULT_BURST: int = _native.RateLimitedLog.DEFAULT_BURST
DEFAULT_INTERVAL: float = _native.RateLimitedLog.DEFAULT_INTERVAL  # seconds


class RateLimitedLog:
    """Logs to `logger` at most `burst` lines of each kind per `interval` seconds (measured by `clock`).

    Raises coupler.Error unless burst >= 1 and interval > 0.
    """

    def __init__(self, logger: logging.Logger, burst: int = DEFAULT_BURST, interval: float = DEFAULT_INTERVAL,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.logger = logger
        self.clock = clock
        self._limit = _native.RateLimitedLog(burst, interval)

    def log(self, level: int, message: str, *args: object) -> None:
        """Log `message % args` at `level` unless this kind (level and `message`) has had its `burst` this interval."""
        if not self.logger.isEnabledFor(level):
            return
        left_out = self._limit.admit(f"{level} {message}", self.clock())
        if left_out is None:
            return
        if left_out:
            self.logger.log(level, "%s", self._limit.left_out_line(left_out))
        self.logger.log(level, message, *args)

    def info(self, message: str, *args: object) -> None:
        self.log(logging.INFO, message, *args)

    def warning(self, message: str, *args: object) -> None:
        self.log(logging.WARNING, message, *args)
