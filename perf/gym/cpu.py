"""CPU seconds used by this process and every process it started (servers, vector env workers): Linux /proc."""

from __future__ import annotations

import os
import time
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, user + system CPU seconds) of a live process, or None once it is gone."""
    try:
        text = (Path("/proc") / pid / "stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after the command name, which may hold spaces
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / _TICKS


def tree_cpu_seconds() -> float:
    """This process's CPU time (every thread) plus that of its live descendants."""
    parents: dict[int, list[tuple[int, float]]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(entry)
            if stat is not None:
                parents.setdefault(stat[0], []).append((int(entry), stat[1]))
    total = time.process_time()
    waiting = [os.getpid()]
    while waiting:
        for child, seconds in parents.get(waiting.pop(), []):
            total += seconds
            waiting.append(child)
    return total
