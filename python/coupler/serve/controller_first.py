"""Controllers first: the order a lockstep loop serves waiting requests in.

Whose turn it is, a driving controller's or everyone else's (readers,
newcomers), and which of the requests waiting goes next, is the C++
`coupler._native.WaitingRequests`' (coupler/serve/waiting_requests.hpp),
the queue the native hot path keeps its waiting reads in: a controller's
request goes first; the others get `SHARE` of theirs after each of its
requests, then one more each `PATIENCE` without its next one. This module
takes the requests from the Python responder into that queue.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from coupler import _native
from coupler.serve.responder import Responder

# Requests of peers that do not drive, taken from the socket and waiting their turn; beyond this many, the
# rest wait in ZeroMQ's queue (a peer that floods with requests without waiting for answers only waits longer).
MAX_WAITING: int = _native.WaitingRequests.MAX_WAITING
# Requests of others served after each request of a driving controller, before waiting for its next one.
SHARE: int = _native.WaitingRequests.SHARE
# Seconds the others wait for a driving controller's next request once their share is used.
PATIENCE: float = _native.WaitingRequests.PATIENCE


class ControllerFirst:
    """Hands out `responder`'s requests, those whose peer `drives` first, the others as `WaitingRequests` lets them.

    `driving()` tells whether any controller holds the simulation: without
    one, the others are served as fast as they come. Raises coupler.Error
    unless `patience` is from 0 to 3600 seconds.
    """

    def __init__(self, responder: Responder, drives: Callable[[bytes], bool], driving: Callable[[], bool],
                 share: int = SHARE, patience: float = PATIENCE, max_waiting: int = MAX_WAITING,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.responder = responder
        self.drives = drives
        self.driving = driving
        self.clock = clock
        self._waiting = _native.WaitingRequests(share, patience, max_waiting)

    def next(self, timeout: float) -> Any | None:
        """The request to serve now, waiting up to `timeout` seconds for one; None when none came."""
        if self._waiting.empty():
            request = self.responder.receive(timeout)
            if request is None:
                return None
            if self.drives(request.peer):
                self._waiting.controller_served()  # a lone controller's round trip pays one lookup
                return request
            self._waiting.arrived(request, False, self.clock())
        request = self.take()
        if request is not None:
            return request
        return self._wait_for_controller()

    def waiting(self) -> bool:
        """True when requests taken from the socket wait here for their turn."""
        return not self._waiting.empty()

    def hand_back(self, request: Any, after_controller: bool) -> None:
        """Queue a request taken from the socket elsewhere (the C++ hot path) ahead of those that came after it.

        `after_controller`: a controller's requests were served since the
        last one handed out here, which renews the others' share.
        """
        if after_controller:
            self._waiting.controller_served()
        self._waiting.handed_back(request, self.drives(request.peer), self.clock())

    def take(self) -> Any | None:
        """A controller's request, or one of the others' if their turn has come; None otherwise. Never blocks."""
        self._gather()
        return self._waiting.take(self.clock(), self.driving())

    def take_any(self) -> Any | None:
        """The next request in the same order, the others' share aside; None when none waits. Never blocks."""
        self._gather()
        return self._waiting.take_any()

    def next_any(self, timeout: float) -> Any | None:
        """The next request, the others' share aside (the controllers wait for answers, not to send), waiting up to
        `timeout` seconds for one; None when none came."""
        request = self.take_any()
        return request if request is not None else self.responder.receive(timeout)

    def _wait_for_controller(self) -> Any:
        """With the others' share used: the controller's next request if it comes before theirs is due, else theirs."""
        while not self._waiting.full():
            left = self._waiting.due - self.clock()
            if left <= 0:
                break
            request = self.responder.receive(left)
            if request is None:
                break
            if self.drives(request.peer):
                self._waiting.controller_served()
                return request
            self._waiting.arrived(request, False, self.clock())
        return self._waiting.serve_other(self.clock())

    def _gather(self) -> None:
        while not self._waiting.full():
            request = self.responder.try_receive()
            if request is None:
                return
            self._waiting.arrived(request, self.drives(request.peer), self.clock())
