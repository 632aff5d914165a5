"""Controllers first: the order a lockstep loop serves waiting requests in.

Whose turn it is, a driving controller's or everyone else's (readers,
newcomers), is the C++ `coupler._native.ReaderShare`'s rule, the one the
native hot path follows (coupler/serve/reader_share.hpp says why): a
controller's request goes first; the others get `SHARE` of theirs after each
of its requests, then one more each `PATIENCE` without its next one. This
module queues the requests the Python loop takes from the socket and asks
that rule which to serve.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from coupler import _native
from coupler.serve.responder import Responder

# Requests of peers that do not drive, taken from the socket and waiting their turn; beyond this many, the
# rest wait in ZeroMQ's queue (a peer that floods with requests without waiting for answers only waits longer).
MAX_WAITING = 4096
# Requests of others served after each request of a driving controller, before waiting for its next one.
SHARE: int = _native.ReaderShare.SHARE
# Seconds the others wait for a driving controller's next request once their share is used.
PATIENCE: float = _native.ReaderShare.PATIENCE


class ControllerFirst:
    """Hands out `responder`'s requests, those whose peer `drives` first, the others as `ReaderShare` lets them.

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
        self.max_waiting = max_waiting
        self.clock = clock
        self._share = _native.ReaderShare(share, patience)
        self._controllers: deque[Any] = deque()
        self._others: deque[Any] = deque()

    def next(self, timeout: float) -> Any | None:
        """The request to serve now, waiting up to `timeout` seconds for one; None when none came."""
        if not self._controllers and not self._others:
            request = self.responder.receive(timeout)
            if request is None:
                return None
            if self.drives(request.peer):
                self._share.controller_served()  # a lone controller's round trip pays one lookup
                return request
            self._wait(request)
        request = self.take()
        if request is not None:
            return request
        return self._wait_for_controller()

    def waiting(self) -> bool:
        """True when requests taken from the socket wait here for their turn."""
        return bool(self._controllers or self._others)

    def hand_back(self, request: Any, after_controller: bool) -> None:
        """Queue a request taken from the socket elsewhere (the C++ hot path) ahead of those that came after it.

        `after_controller`: a controller's requests were served since the
        last one handed out here, which renews the others' share.
        """
        if after_controller:
            self._share.controller_served()
        if self.drives(request.peer):
            self._controllers.appendleft(request)
            return
        if not self._others:
            self._share.first_waits(self.clock())
        self._others.appendleft(request)

    def take(self) -> Any | None:
        """A controller's request, or one of the others' if their turn has come; None otherwise. Never blocks."""
        self._gather()
        if self._controllers:
            self._share.controller_served()
            return self._controllers.popleft()
        if self._others:
            now = self.clock()
            if not self.driving() or self._share.may_serve(now):
                self._share.served(now)
                return self._others.popleft()
        return None

    def take_any(self) -> Any | None:
        """The next request in the same order, the others' share aside; None when none waits. Never blocks."""
        self._gather()
        if self._controllers:
            return self._controllers.popleft()
        return self._others.popleft() if self._others else None

    def _wait_for_controller(self) -> Any:
        """With the others' share used: the controller's next request if it comes before theirs is due, else theirs."""
        while len(self._others) < self.max_waiting:
            left = self._share.due - self.clock()
            if left <= 0:
                break
            request = self.responder.receive(left)
            if request is None:
                break
            if self.drives(request.peer):
                self._share.controller_served()
                return request
            self._others.append(request)
        self._share.served(self.clock())
        return self._others.popleft()

    def _wait(self, request: Any) -> None:
        """Queue one of the others' requests behind those already waiting."""
        if not self._others:
            self._share.first_waits(self.clock())
        self._others.append(request)

    def _gather(self) -> None:
        while len(self._others) < self.max_waiting:
            request = self.responder.try_receive()
            if request is None:
                return
            if self.drives(request.peer):
                self._controllers.append(request)
            else:
                self._wait(request)
