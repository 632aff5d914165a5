"""The order a lockstep loop serves waiting requests in: a driving controller's first, everyone else's as they came."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import pytest

from coupler import _native
from coupler.serve.controller_first import ControllerFirst
from coupler.wire.errors import Error


@dataclass(frozen=True)
class Request:
    peer: bytes
    n: int


class Arrivals:
    """A responder whose socket holds `requests`, in arrival order."""

    def __init__(self, *peers: bytes) -> None:
        self.waiting = deque(Request(peer, n) for n, peer in enumerate(peers))
        self.now = 0.0  # a clock that moves only while receive() waits in vain

    def clock(self) -> float:
        return self.now

    def receive(self, timeout: float) -> Request | None:
        request = self.try_receive()
        if request is None:
            self.now += timeout
        return request

    def try_receive(self) -> Request | None:
        return self.waiting.popleft() if self.waiting else None


def order(queue: ControllerFirst) -> list[bytes]:
    served = []
    while (request := queue.next(0.0)) is not None:
        served.append(request.peer)
    return served


def drives(peer: bytes) -> bool:
    return peer.startswith(b"controller")


def nobody() -> bool:
    """No controller holds the simulation: the others' share does not apply."""
    return False


def somebody() -> bool:
    return True


def test_a_controllers_request_is_served_before_the_readers_that_came_first():
    queue = ControllerFirst(Arrivals(b"reader1", b"reader2", b"controller", b"reader3"), drives, nobody)
    assert queue.next(0.0).peer == b"controller"


def test_everyone_elses_requests_are_served_in_arrival_order():
    queue = ControllerFirst(Arrivals(b"reader1", b"newcomer", b"controller", b"reader3"), drives, nobody)
    assert order(queue) == [b"controller", b"reader1", b"newcomer", b"reader3"]


def test_each_controllers_requests_keep_their_order():
    arrivals = Arrivals(b"reader", b"controller-a", b"controller-b")
    queue = ControllerFirst(arrivals, drives, nobody)
    assert [queue.next(0.0).n for _ in range(3)] == [1, 2, 0]


def test_a_controllers_request_that_arrives_while_readers_wait_goes_ahead_of_them():
    arrivals = Arrivals(b"reader1", b"reader2", b"reader3")
    queue = ControllerFirst(arrivals, drives, nobody)
    assert queue.next(0.0).peer == b"reader1"  # readers 2 and 3 now wait in the queue
    arrivals.waiting.append(Request(b"controller", 9))
    assert order(queue) == [b"controller", b"reader2", b"reader3"]


def test_no_more_than_max_waiting_are_taken_from_the_socket():
    arrivals = Arrivals(b"reader1", b"reader2", b"reader3", b"controller")
    queue = ControllerFirst(arrivals, drives, nobody, max_waiting=2)
    assert queue.next(0.0).peer == b"reader1"
    assert [r.peer for r in arrivals.waiting] == [b"reader3", b"controller"]


def test_while_a_controller_drives_the_others_get_their_share_after_each_of_its_requests():
    arrivals = Arrivals(b"reader1", b"controller", b"reader2", b"reader3")
    queue = ControllerFirst(arrivals, drives, somebody, share=1, patience=10.0)
    assert queue.next(0.0).peer == b"controller"
    assert queue.next(0.0).peer == b"reader1"
    arrivals.waiting.append(Request(b"controller", 9))  # its next request comes while readers 2 and 3 wait
    assert queue.next(0.0).peer == b"controller"
    assert queue.next(0.0).peer == b"reader2"


def test_with_their_share_used_the_others_wait_for_the_controllers_next_request_no_longer_than_the_patience():
    arrivals = Arrivals(b"controller", b"reader1", b"reader2")
    queue = ControllerFirst(arrivals, drives, somebody, share=1, patience=0.05, clock=arrivals.clock)
    assert [queue.next(0.0).peer for _ in range(2)] == [b"controller", b"reader1"]
    assert queue.next(0.0).peer == b"reader2"  # the controller thinks: reader 2 is served after the patience
    assert arrivals.now == 0.05


def test_while_the_controller_waits_for_an_answer_the_others_are_served_as_they_came_without_waiting_their_turn():
    arrivals = Arrivals(b"controller", b"reader1", b"reader2", b"reader3")
    queue = ControllerFirst(arrivals, drives, somebody, share=1, patience=0.05, clock=arrivals.clock)
    assert queue.next(0.0).peer == b"controller"
    assert [queue.next_any(0.0).peer for _ in range(3)] == [b"reader1", b"reader2", b"reader3"]
    assert arrivals.now == 0.0  # none waited for the controller's next request
    assert queue.next_any(0.01) is None and arrivals.now == 0.01  # none came within the time given


def test_without_a_controller_the_others_are_served_without_waiting():
    queue = ControllerFirst(Arrivals(b"reader1", b"reader2", b"reader3"), drives, nobody, share=1, patience=10.0)
    assert order(queue) == [b"reader1", b"reader2", b"reader3"]


@pytest.mark.parametrize("patience", [-0.001, 3600.5, math.nan])
def test_a_patience_below_zero_or_beyond_an_hour_is_refused_in_one_line(patience):
    with pytest.raises(Error, match="^patience must be from 0 to 3600 seconds$"):
        ControllerFirst(Arrivals(), drives, nobody, patience=patience)


def test_serving_one_of_the_others_where_none_waits_is_refused_in_one_line():
    with pytest.raises(Error, match="^no request of the others waits$"):
        _native.WaitingRequests().serve_other(0.0)
