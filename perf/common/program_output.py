"""Figures read from what the measured programs print: the clients' timing
lines, the demo server's exit summary and both servers' frame-size traces."""

from __future__ import annotations

import re

from perf.common.errors import BenchmarkError

# coupler's demo server logs "received 126 bytes, sent 990 bytes";
# Click's prints "Received 47 from client, Sent 300 bytes to client".
_SIZES = re.compile(r"received (\d+)(?: bytes)?(?: from client)?, sent (\d+) bytes", re.IGNORECASE)


def figure(output: str, label: str) -> float:
    """The number after `label:` on the last line that starts with it (units after the number are ignored)."""
    pattern = re.compile(rf"^\s*{re.escape(label)}:\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)", re.MULTILINE)
    found = pattern.findall(output)
    if not found:
        raise BenchmarkError(f"no '{label}' in the output:\n{output[-2000:]}")
    return float(found[-1])


def frame_sizes(output: str) -> tuple[int, int]:
    """(request bytes, reply bytes) of the last exchange a server traced with --trace-sizes.

    A server logs sizes whenever they change, so the last pair is the one
    the measured loop ran with.
    """
    found = _SIZES.findall(output)
    if not found:
        raise BenchmarkError(f"the server traced no frame sizes:\n{output[-2000:]}")
    request, reply = found[-1]
    return int(request), int(reply)
