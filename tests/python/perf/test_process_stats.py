"""perf.common.process_stats: CPU time and resident memory of running processes, from /proc."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from perf.common.errors import BenchmarkError
from perf.common.process_stats import (cpu_seconds, cpu_seconds_with_children, exact_cpu_seconds, rss_kib,
                                       tree_cpu_seconds)


def test_rss_of_a_running_process_is_read_from_proc():
    assert 1024 < rss_kib(os.getpid()) < 16 * 1024 * 1024


def test_rss_of_a_process_that_has_exited_is_an_error():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    with pytest.raises(BenchmarkError, match="exited"):
        rss_kib(process.pid)


def test_cpu_seconds_grow_while_a_process_computes():
    before = cpu_seconds(os.getpid())
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:
        pass
    assert cpu_seconds(os.getpid()) - before >= 0.2


def test_cpu_seconds_with_children_count_a_busy_child():
    child = subprocess.Popen([sys.executable, "-c", "import time\nend = time.process_time() + 0.5\n"
                              "while time.process_time() < end: pass\ntime.sleep(30)"])
    try:
        deadline = time.monotonic() + 20
        while cpu_seconds(child.pid) < 0.4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert cpu_seconds_with_children(os.getpid()) - cpu_seconds(os.getpid()) >= 0.3
        assert tree_cpu_seconds() - time.process_time() >= 0.3
    finally:
        child.kill()
        child.wait()


def test_cpu_seconds_with_children_of_a_process_that_is_gone_are_zero():
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    assert cpu_seconds_with_children(process.pid) == 0.0


def test_exact_cpu_seconds_agree_with_the_process_clock():
    # Differences over a busy stretch: the process clock also counts threads that ended before it (earlier
    # tests' pools), which the live threads' schedstat no longer holds.
    exact_before, clock_before = exact_cpu_seconds(os.getpid()), time.process_time()
    deadline = clock_before + 0.2
    while time.process_time() < deadline:
        pass
    exact, clock = exact_cpu_seconds(os.getpid()) - exact_before, time.process_time() - clock_before
    # Other threads of this process (none busy) and the 10 ms granularity of neither clock: within 20 ms.
    assert exact == pytest.approx(clock, abs=0.02)
