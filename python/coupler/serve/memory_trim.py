"""Giving memory back after storms of connections.

Every connection costs libzmq's I/O thread a few allocations, freed when it
closes; glibc keeps what was freed in that thread's arena instead of handing
it back to the system. Tens of thousands of garbage connections left the
server 40-50 MiB larger for good, though nothing used the memory any more
(plain connect/close stays flat). `malloc_trim` returns it: a thread of the
server looks at its resident memory every few seconds and trims once it has
grown by more than a few MiB since the last look that trimmed (or since
start-up). Memory the server really uses stays; the next trim waits for
growth beyond it.

A trim in the middle of a storm finds much of the memory in use (a thousand
stalled connections wait out their handshake timeout); freed later, it would
never be given back, as nothing grows any more: the server stayed 12.8 MiB
above its start once. So while the memory stays that much above the least
it was, trims go on, ever more rarely while they give nothing back (after 1,
2, 4, ... looks, up to `MAX_BACKOFF_LOOKS`), and as often as the looks again
once one gives something back.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import os
import threading
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

TRIM_EVERY = 2.0  # seconds between looks at the resident memory
TRIM_GROWTH = 4 * 1024 * 1024  # bytes of growth that make a look trim
# A trim giving back less than this (bytes) found the memory in use: the next one waits twice as many looks.
GIVEN_BACK = 1024 * 1024
# The most looks between trims while the memory stays above the least it was (about a minute at TRIM_EVERY).
MAX_BACKOFF_LOOKS = 32

_PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_bytes() -> int:
    """This process's resident memory (VmRSS), in bytes."""
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[1]) * _PAGE


def _glibc_malloc_trim() -> Callable[[], object] | None:
    """glibc's malloc_trim(0), or None where the C library has none (musl, macOS): nothing to give back there."""
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    return lambda: trim(0)


class MemoryTrim:
    """Trims the C heap when `resident()` has grown by `growth` bytes since the last trim (or the first look),
    and, ever more rarely while trims give nothing back, while it stays `growth` above the least it was."""

    def __init__(self, growth: int = TRIM_GROWTH, resident: Callable[[], int] = resident_bytes,
                 trim: Callable[[], object] | None = None) -> None:
        self.growth = growth
        self.resident = resident
        self.trim = trim
        self.trims = 0
        self.failed_looks = 0
        self._baseline: int | None = None
        self._floor = 0  # the least resident memory seen
        self._backoff = 1  # looks between trims while the memory stays above the floor
        self._looks_left = 1

    def look(self) -> bool:
        """Trim if the memory has grown enough, or stays above the floor and a retry is due; True when it trimmed."""
        now = self.resident()
        if self._baseline is None or now < self._baseline:
            self._floor = now if self._baseline is None else min(self._floor, now)
            self._baseline = now
            return False
        if self.trim is None:
            return False
        if now - self._baseline < self.growth:
            if now - self._floor < self.growth:
                return False
            self._looks_left -= 1
            if self._looks_left > 0:
                return False
        self.trim()
        self.trims += 1
        after = self.resident()
        log.debug("gave back %.1f MiB of freed memory", (now - after) / 2**20)
        # What is left may be in use: the next trim waits for growth beyond it, or for its retry.
        self._baseline = after
        self._backoff = 1 if now - after >= GIVEN_BACK else min(2 * self._backoff, MAX_BACKOFF_LOOKS)
        self._looks_left = self._backoff
        return True

    def run(self, stop: threading.Event, every: float = TRIM_EVERY) -> None:
        """Look every `every` seconds until `stop` is set. A look that fails (no file descriptor left to read
        /proc with, in a storm of connections) is skipped, and the next one tries again: trimming is needed
        most right after such a storm."""
        while not stop.wait(every):
            try:
                self.look()
            except OSError as error:
                self.failed_looks += 1
                log.debug("skipped a look at the resident memory: %s", error)


@contextlib.contextmanager
def memory_given_back(every: float = TRIM_EVERY) -> Iterator[MemoryTrim]:
    """A thread trimming the heap after growth while the block runs (a serving loop); it ends with the block."""
    trimmer = MemoryTrim(trim=_glibc_malloc_trim())
    stop = threading.Event()
    thread = threading.Thread(target=trimmer.run, args=(stop, every), name="coupler-memory-trim", daemon=True)
    thread.start()
    try:
        yield trimmer
    finally:
        stop.set()
        thread.join(timeout=5.0)
