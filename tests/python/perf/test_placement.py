"""perf.common.placement: clients on one CPU, servers on another, or left alone."""

import pytest

from perf.common import placement


def test_a_client_and_a_server_are_pinned_to_two_different_cpus(monkeypatch):
    monkeypatch.setattr(placement, "cpus", lambda: (2, 5))
    assert placement.pinned(["prog", "--flag"], placement.CLIENT) == ["taskset", "--cpu-list", "2", "prog", "--flag"]
    assert placement.pinned(["prog"], placement.SERVER) == ["taskset", "--cpu-list", "5", "prog"]
    assert placement.describe(True) == "clients on CPU 2, servers on CPU 5"


@pytest.mark.parametrize("pin, cpus", [(False, (0, 1)), (True, None)])
def test_a_command_is_left_alone_when_not_pinning_or_it_cannot_be(monkeypatch, pin, cpus):
    monkeypatch.setattr(placement, "cpus", lambda: cpus)
    assert placement.pinned(["prog"], placement.CLIENT, pin) == ["prog"]
    assert placement.describe(pin) == "unpinned"


def test_one_cpu_is_too_few_to_pin(monkeypatch):
    monkeypatch.setattr(placement.os, "sched_getaffinity", lambda pid: {3})
    assert placement.cpus() is None
