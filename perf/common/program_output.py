"""Figures read from what the measured programs print: the clients' timing
lines, the demo server's exit summary and both servers' frame-size traces."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from perf.common.errors import BenchmarkError

# coupler's demo server logs "received 126 bytes, sent 990 bytes";
# Click's prints "Received 47 from client, Sent 300 bytes to client".
_SIZES = re.compile(r"received (\d+)(?: bytes)?(?: from client)?, sent (\d+) bytes", re.IGNORECASE)
# A request of nothing but its message type: HandshakeInit, SensorRequest and Reset, a client's opening
# requests and the readiness probe's, each encode to 2 bytes. A Control carries its values, so its
# request is longer: the exchanges a round-trip loop is made of are those with a longer request.
BARE_REQUEST_BYTES = 2
# Between two looks at a log that has not shown the Controls' sizes yet.
_LOG_POLL_SECONDS = 0.01


def figure(output: str, label: str) -> float:
    """The number after `label:` on the last line that starts with it (units after the number are ignored)."""
    pattern = re.compile(rf"^\s*{re.escape(label)}:\s*(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)", re.MULTILINE)
    found = pattern.findall(output)
    if not found:
        raise BenchmarkError(f"no '{label}' in the output:\n{output[-2000:]}")
    return float(found[-1])


def control_frame_sizes(output: str) -> tuple[int, int] | None:
    """(request bytes, reply bytes) of the last Control exchange a server traced with --trace-sizes, or
    None when it traced none (yet).

    A server logs sizes whenever they change, and every client opens with a
    HandshakeInit, whose sizes are traced too: the last exchange traced can
    be a client's opening one, whose Controls' line has not been read yet
    (a server's log is copied from its output as it comes, so it may lag).
    Only an exchange whose request is longer than a bare message is a
    Control's.
    """
    controls = [(int(request), int(reply)) for request, reply in _SIZES.findall(output)
                if int(request) > BARE_REQUEST_BYTES]
    return controls[-1] if controls else None


def frame_sizes(output: str) -> tuple[int, int]:
    """(request bytes, reply bytes) of the Controls of a server's whole output (control_frame_sizes), once it
    has stopped: those the measured loop ran with, the last sizes it traced for a Control."""
    sizes = control_frame_sizes(output)
    if sizes is None:
        raise BenchmarkError(f"the server traced no Control's frame sizes:\n{output[-2000:]}")
    return sizes


def wait_for_frame_sizes(read_log: Callable[[], str], timeout: float) -> tuple[int, int]:
    """(request bytes, reply bytes) of the Controls a running server has traced (control_frame_sizes), read
    with `read_log` until they are there: BenchmarkError after `timeout` seconds without them."""
    deadline = time.monotonic() + timeout
    while True:
        output = read_log()
        sizes = control_frame_sizes(output)
        if sizes is not None:
            return sizes
        if time.monotonic() >= deadline:
            raise BenchmarkError(f"the server traced no Control's frame sizes within {timeout:g} s:\n"
                                 f"{output[-2000:]}")
        time.sleep(_LOG_POLL_SECONDS)
