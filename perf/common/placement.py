"""Which CPU a measured process runs on: a client on one, its server on another.

Left to the scheduler, a client and its server (and their ZeroMQ I/O threads)
share one CPU for one measurement and sit on two for the next, and a round
trip costs tens of microseconds more across CPUs, where each side wakes the
other's halted core: on a 2-CPU virtual machine the same ping-pong measures
about 42 µs on one CPU and 70-80 µs across two, and an unpinned run lands on
either. Pinned, every row and floor of a run pays the same wake-ups.
"""

from __future__ import annotations

import os
import shutil

CLIENT = "client"
SERVER = "server"


def cpus() -> tuple[int, int] | None:
    """(client CPU, server CPU): the first two this process may run on; None with fewer than two CPUs or
    no taskset to pin with."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2 or shutil.which("taskset") is None:
        return None
    return allowed[0], allowed[1]


def pinned(command: list[str], role: str, pin: bool = True) -> list[str]:
    """`command` run on its role's CPU (every thread it starts inherits it), or unchanged when not pinning."""
    chosen = cpus() if pin else None
    if chosen is None:
        return command
    cpu = chosen[0] if role == CLIENT else chosen[1]
    return ["taskset", "--cpu-list", str(cpu), *command]


def describe(pin: bool) -> str:
    chosen = cpus() if pin else None
    if chosen is None:
        return "unpinned"
    return f"clients on CPU {chosen[0]}, servers on CPU {chosen[1]}"
