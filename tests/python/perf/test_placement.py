"""perf.common.placement: a client and its server on one CPU apart from the harness's, or left alone."""

import os
import subprocess
import sys

import pytest

from perf.common import placement


def test_a_client_and_its_server_are_pinned_to_one_cpu_other_than_the_harnesss(monkeypatch):
    monkeypatch.setattr(placement, "cpus", lambda: (2, 5))
    assert placement.pinned(["prog", "--flag"], placement.CLIENT) == ["taskset", "--cpu-list", "5", "prog", "--flag"]
    assert placement.pinned(["prog"], placement.SERVER) == ["taskset", "--cpu-list", "5", "prog"]
    assert placement.describe(True) == "clients and servers on CPU 5"


@pytest.mark.parametrize("pin, cpus", [(False, (0, 1)), (True, None)])
def test_a_command_is_left_alone_when_not_pinning_or_it_cannot_be(monkeypatch, pin, cpus):
    monkeypatch.setattr(placement, "cpus", lambda: cpus)
    assert placement.pinned(["prog"], placement.CLIENT, pin) == ["prog"]
    assert placement.describe(pin) == "unpinned"


def test_one_cpu_is_too_few_to_pin(monkeypatch):
    monkeypatch.setattr(placement.os, "sched_getaffinity", lambda pid: {3})
    assert placement.cpus() is None


def _moved_threads(monkeypatch, pin):
    calls = []
    monkeypatch.setattr(placement, "cpus", lambda: (0, 1))
    monkeypatch.setattr(placement.os, "sched_setaffinity", lambda thread, chosen: calls.append((thread, chosen)))
    with subprocess.Popen([sys.executable, "-c", "import threading, time; threading.Thread(target=time.sleep, "
                           "args=(30,)).start(); print(flush=True); time.sleep(30)"], stdout=subprocess.PIPE) as child:
        child.stdout.readline()  # its second thread has started
        threads = {int(thread) for thread in os.listdir(f"/proc/{child.pid}/task")}
        placement.move(child.pid, pin)
        child.kill()
    return calls, threads


def test_a_running_server_is_moved_to_the_measured_cpu_thread_by_thread(monkeypatch):
    calls, threads = _moved_threads(monkeypatch, True)
    assert len(threads) == 2
    assert sorted(calls) == sorted((thread, {1}) for thread in threads)


def test_a_running_server_stays_where_it_is_when_not_pinning(monkeypatch):
    assert _moved_threads(monkeypatch, False)[0] == []
