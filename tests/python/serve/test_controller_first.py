"""The order a lockstep loop serves waiting requests in: a driving controller's first, everyone else's as they came."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from coupler.serve.controller_first import ControllerFirst


@dataclass(frozen=True)
class Request:
    peer: bytes
    n: int


class Arrivals:
    """A responder whose socket holds `requests`, in arrival order."""

    def __init__(self, *peers: bytes) -> None:
        self.waiting = deque(Request(peer, n) for n, peer in enumerate(peers))

    def receive(self, timeout: float) -> Request | None:
        return self.try_receive()

    def try_receive(self) -> Request | None:
        return self.waiting.popleft() if self.waiting else None


def order(queue: ControllerFirst) -> list[bytes]:
    served = []
    while (request := queue.next(0.0)) is not None:
        served.append(request.peer)
    return served


def drives(peer: bytes) -> bool:
    return peer.startswith(b"controller")


def test_a_controllers_request_is_served_before_the_readers_that_came_first():
    queue = ControllerFirst(Arrivals(b"reader1", b"reader2", b"controller", b"reader3"), drives)
    assert queue.next(0.0).peer == b"controller"


def test_everyone_elses_requests_are_served_in_arrival_order():
    queue = ControllerFirst(Arrivals(b"reader1", b"newcomer", b"controller", b"reader3"), drives)
    assert order(queue) == [b"controller", b"reader1", b"newcomer", b"reader3"]


def test_each_controllers_requests_keep_their_order():
    arrivals = Arrivals(b"reader", b"controller-a", b"controller-b")
    queue = ControllerFirst(arrivals, drives)
    assert [queue.next(0.0).n for _ in range(3)] == [1, 2, 0]


def test_a_controllers_request_that_arrives_while_readers_wait_goes_ahead_of_them():
    arrivals = Arrivals(b"reader1", b"reader2", b"reader3")
    queue = ControllerFirst(arrivals, drives)
    assert queue.next(0.0).peer == b"reader1"  # readers 2 and 3 now wait in the queue
    arrivals.waiting.append(Request(b"controller", 9))
    assert order(queue) == [b"controller", b"reader2", b"reader3"]


def test_no_more_than_max_waiting_are_taken_from_the_socket():
    arrivals = Arrivals(b"reader1", b"reader2", b"reader3", b"controller")
    queue = ControllerFirst(arrivals, drives, max_waiting=2)
    assert queue.next(0.0).peer == b"reader1"
    assert [r.peer for r in arrivals.waiting] == [b"reader3", b"controller"]
