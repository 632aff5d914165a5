"""A perf.rtt result's ratios slice by slice: a row's p50 over its floor's, and a coupler row's over the
recorded server's, from the per-slice figures the result stores, in slice order."""

from __future__ import annotations

from typing import Any

# The ratios a row can have, by the key its summary is stored under.
TO_FLOOR = "vs_floor"
TO_RECORDED = "vs_recorded"


def _over(ours: dict[str, Any], theirs: dict[str, Any] | None) -> list[float] | None:
    if theirs is None or "slices" not in ours or "slices" not in theirs:
        return None
    a, b = ours["slices"]["p50_us"], theirs["slices"]["p50_us"]
    if len(a) != len(b) or any(x is None or y is None or y <= 0 for x, y in zip(a, b)):
        return None
    return [x / y for x, y in zip(a, b)]


def _recorded(result: dict[str, Any], row: dict[str, Any]) -> dict[str, Any] | None:
    """The recorded server's row a coupler row was measured beside: same client, same floor group."""
    return next((other for other in result["rows"] if other["peer"] == "recorded"
                 and other["client"] == row["client"] and other["floor_index"] == row["floor_index"]), None)


def ratios(result: dict[str, Any], row: dict[str, Any]) -> dict[str, list[float]]:
    """Each ratio the row has (TO_FLOOR, TO_RECORDED) as its slices' values; a ratio is left out when the
    result has no slices to take it from (one written before rows had slices)."""
    found = {}
    if row.get(TO_FLOOR) is not None:
        to_floor = _over(row, result["floors"][row["floor_index"]])
        if to_floor is not None:
            found[TO_FLOOR] = to_floor
    if row.get(TO_RECORDED) is not None:
        to_recorded = _over(row, _recorded(result, row))
        if to_recorded is not None:
            found[TO_RECORDED] = to_recorded
    return found
