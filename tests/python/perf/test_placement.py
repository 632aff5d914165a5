"""perf.common.placement: a client and its server on one CPU apart from the harness's, or left alone."""

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
