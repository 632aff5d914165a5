"""argparse types for numeric flags: finite numbers within a stated range.

A flag such as `--step nan` or `--max-frame-bytes 99999999999999999999`
must end in one line naming the flag and its range, never in a traceback or
in a server that serves NaN; argparse turns the ArgumentTypeError raised
here into `prog: error: argument --flag: ...` and exit code 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

_SHOWN_CHARS = 40  # a value echoed back is cut to this length


def _shown(text: str) -> str:
    return repr(text[:_SHOWN_CHARS] + ("..." if len(text) > _SHOWN_CHARS else ""))


def float_in(low: float, high: float, *, zero_allowed: bool = False, unit: str = "") -> Callable[[str], float]:
    """A finite number from `low` to `high` inclusive (or exactly 0 when `zero_allowed`)."""
    suffix = f" {unit}" if unit else ""
    zero = "0 or " if zero_allowed else ""
    wanted = f"a number, {zero}from {low:g} to {high:g}{suffix}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"needs {wanted}, got {_shown(text)}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"needs {wanted}, got {_shown(text)} (not finite)")
        if (zero_allowed and value == 0) or low <= value <= high:
            return value
        raise argparse.ArgumentTypeError(f"needs {wanted}, got {_shown(text)}")

    return parse


def int_in(low: int, high: int) -> Callable[[str], int]:
    """A whole number from `low` to `high` inclusive."""
    wanted = f"a whole number from {low} to {high}"

    def parse(text: str) -> int:
        try:
            value = int(text[:_SHOWN_CHARS + 1])
        except ValueError:
            raise argparse.ArgumentTypeError(f"needs {wanted}, got {_shown(text)}") from None
        if len(text) > _SHOWN_CHARS or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"needs {wanted}, got {_shown(text)}")
        return value

    return parse
