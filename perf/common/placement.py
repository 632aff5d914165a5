"""Which CPU a measured process runs on: a client and its server on one CPU, the harness on another.

A ping-pong alternates strictly, so on one CPU a round trip is two context
switches; across two CPUs each side also wakes the other's halted core, which
on a virtual machine costs tens of microseconds and varies from one wake-up to
the next. On a 2-CPU virtual machine the same C++ ping-pong measures about
42 µs on one CPU and 70-80 µs across two, and two short runs back to back with
clients and servers on different CPUs had 4 of 9 ratios more than 10 % apart,
against 1 of 9 with both on one. Left to the scheduler, a pair shares a CPU in
one measurement and not in the next. Pinned, every row and floor of a run pays
the same switches and no wake-up of another core.
"""

from __future__ import annotations

import os
import shutil

CLIENT = "client"
SERVER = "server"


def cpus() -> tuple[int, int] | None:
    """(the harness's CPU, the measured processes' CPU): the first and second this process may run on; None
    with fewer than two CPUs or no taskset to pin with."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2 or shutil.which("taskset") is None:
        return None
    return allowed[0], allowed[1]


def pinned(command: list[str], role: str, pin: bool = True) -> list[str]:
    """`command` (a `role`, CLIENT or SERVER: both go to one CPU) run on the measured processes' CPU (every
    thread it starts inherits it), or unchanged when not pinning."""
    assert role in (CLIENT, SERVER), role
    chosen = cpus() if pin else None
    if chosen is None:
        return command
    return ["taskset", "--cpu-list", str(chosen[1]), *command]


def move(pid: int, pin: bool = True) -> None:
    """Every thread of a running process onto the measured processes' CPU (threads it starts later inherit
    it), so a server can start on any CPU, side by side with others, and be measured on that one; nothing
    when not pinning."""
    chosen = cpus() if pin else None
    if chosen is None:
        return
    moved: set[int] = set()
    while True:  # again for any thread started while the others were moved
        threads = {int(thread) for thread in os.listdir(f"/proc/{pid}/task")} - moved
        if not threads:
            return
        for thread in threads:
            try:
                os.sched_setaffinity(thread, {chosen[1]})
            except ProcessLookupError:  # a thread that has ended
                pass
        moved |= threads


def describe(pin: bool) -> str:
    chosen = cpus() if pin else None
    if chosen is None:
        return "unpinned"
    return f"clients and servers on CPU {chosen[1]}"
