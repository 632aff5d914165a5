"""The heap is trimmed after the resident memory grew by more than the threshold, and only then."""

from __future__ import annotations

import threading

from coupler.serve.memory_trim import MemoryTrim, memory_given_back, resident_bytes

MIB = 2**20


class Memory:
    """A process's resident memory as the test sets it; a trim gives back what was `freed`."""

    def __init__(self, resident: int) -> None:
        self.now = resident
        self.freed = 0
        self.trims = 0

    def __call__(self) -> int:
        return self.now

    def trim(self) -> None:
        self.trims += 1
        self.now -= self.freed
        self.freed = 0


def test_growth_beyond_the_threshold_is_trimmed():
    memory = Memory(60 * MIB)
    trim = MemoryTrim(growth=4 * MIB, resident=memory, trim=memory.trim)
    trim.look()
    memory.now += 10 * MIB
    memory.freed = 10 * MIB
    assert trim.look() and memory.now == 60 * MIB


def test_growth_below_the_threshold_is_left_alone():
    memory = Memory(60 * MIB)
    trim = MemoryTrim(growth=4 * MIB, resident=memory, trim=memory.trim)
    trim.look()
    memory.now += 3 * MIB
    assert not trim.look() and memory.trims == 0


def test_memory_in_use_after_a_trim_is_not_trimmed_again_and_again():
    memory = Memory(60 * MIB)
    trim = MemoryTrim(growth=4 * MIB, resident=memory, trim=memory.trim)
    trim.look()
    memory.now += 20 * MIB  # in use: a trim gives nothing back
    assert trim.look()
    assert not trim.look() and memory.trims == 1


def test_memory_freed_after_a_trim_that_found_it_in_use_is_given_back_at_a_later_look():
    memory = Memory(60 * MIB)
    trim = MemoryTrim(growth=4 * MIB, resident=memory, trim=memory.trim)
    trim.look()
    memory.now += 20 * MIB  # in use (stalled connections): a trim gives nothing back
    assert trim.look()
    memory.freed = 19 * MIB  # the connections closed; nothing grows any more
    for _ in range(3):
        trim.look()
    assert memory.now == 61 * MIB and memory.trims == 2


def test_memory_in_use_above_the_floor_is_trimmed_ever_more_rarely():
    memory = Memory(60 * MIB)
    trim = MemoryTrim(growth=4 * MIB, resident=memory, trim=memory.trim)
    trim.look()
    memory.now += 20 * MIB  # in use for good
    for _ in range(200):
        trim.look()
    # After 1, 2, 4, ... 32 looks, then every 32: 6 trims in the first 64 looks, 4 more in the next 136.
    assert memory.trims == 10


def test_without_malloc_trim_nothing_is_trimmed():
    memory = Memory(60 * MIB)
    trim = MemoryTrim(growth=4 * MIB, resident=memory, trim=None)
    trim.look()
    memory.now += 10 * MIB
    assert not trim.look()


def test_the_trimming_thread_ends_with_its_block():
    before = threading.active_count()
    with memory_given_back(every=0.01) as trim:
        assert threading.active_count() == before + 1
    assert threading.active_count() == before
    assert trim.trim is not None and resident_bytes() > 0  # glibc's malloc_trim was found


def test_trimming_goes_on_after_a_look_fails_for_want_of_file_descriptors():
    memory = Memory(60 * MIB)
    looks = [0]

    def resident() -> int:
        looks[0] += 1
        if looks[0] == 1:
            raise OSError(24, "Too many open files")
        return memory()

    trimmer = MemoryTrim(growth=4 * MIB, resident=resident, trim=memory.trim)
    stop = threading.Event()
    thread = threading.Thread(target=trimmer.run, args=(stop, 0.005))
    thread.start()
    try:
        while looks[0] < 3 and thread.is_alive():  # the failed look, one that took the baseline, the next begun
            stop.wait(0.005)
        memory.now += 10 * MIB
        memory.freed = 10 * MIB
        for _ in range(400):
            if memory.trims:
                break
            stop.wait(0.005)
    finally:
        stop.set()
        thread.join(timeout=5)
    assert trimmer.failed_looks == 1
    assert memory.trims == 1
