"""What Linux's /proc says of a running process: CPU time and resident memory,
read the same way by every benchmark."""

from __future__ import annotations

import os
import time
from pathlib import Path

from perf.common.errors import BenchmarkError

_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name, which may hold spaces and parentheses."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time a process has used so far, all its threads together."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS_PER_SECOND


def cpu_seconds_with_children(pid: int) -> float:
    """cpu_seconds of a process and of its children still running; 0 once it is gone."""
    try:
        own = cpu_seconds(pid)
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    return own + sum(cpu_seconds_with_children(int(child)) for child in children)


def tree_cpu_seconds() -> float:
    """This process's CPU time (every thread) plus that of its live descendants."""
    parents: dict[int, list[tuple[int, float]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = _stat_fields(entry)
        except OSError:
            continue  # gone since the listing
        parents.setdefault(int(fields[1]), []).append(
            (int(entry), (int(fields[11]) + int(fields[12])) / _TICKS_PER_SECOND))
    total = time.process_time()
    waiting = [os.getpid()]
    while waiting:
        for child, seconds in parents.get(waiting.pop(), []):
            total += seconds
            waiting.append(child)
    return total


def rss_kib(pid: int) -> int:
    """VmRSS of a running process in KiB; BenchmarkError when it has exited."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        raise BenchmarkError(f"process {pid} has exited: no /proc/{pid}/status") from None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])  # "VmRSS:    123456 kB"
    # A process that has exited but not been reaped (a zombie) keeps its status without memory lines.
    raise BenchmarkError(f"process {pid} has exited: no VmRSS in /proc/{pid}/status")


def exact_cpu_seconds(pid: int) -> float:
    """CPU time of a running process's live threads, to the nanosecond (/proc/PID/task/*/schedstat), where
    cpu_seconds counts in clock ticks of 10 ms: a slice of a few thousand round trips uses well under a
    second, so ticks would blur it by several percent. Falls back to cpu_seconds on a kernel without
    schedstat."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        raise BenchmarkError(f"process {pid} has exited: no /proc/{pid}/task") from None
    for task in tasks:
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except FileNotFoundError:
            if not Path(f"/proc/{pid}/task/{task}").exists():
                continue  # a thread that ended since the listing
            return cpu_seconds(pid)
        except (OSError, ValueError, IndexError):
            return cpu_seconds(pid)
    return total / 1e9
