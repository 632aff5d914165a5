"""Controllers first: the order a lockstep loop serves waiting requests in.

ZeroMQ hands requests over in arrival order, so a controller's Control would
wait behind every reader's SensorRequest that came before it: thirty readers
polling the state took a controller from 4,000 to 300 steps/s. Instead,
whatever waits is taken from the socket at each turn, and a request of a
controller holding the simulation is served before anyone else's. Readers
and newcomers get the time between a controller's answer and its next
request, which a controller waiting for its answers (a REQ socket, as every
coupler and Click client has) always leaves: each waits behind at most one
request of each controller, and a controller waits behind at most the one
request being served when its own arrived.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from coupler.serve.responder import Responder

# Requests of peers that do not drive, taken from the socket and waiting their turn; beyond this many, the
# rest wait in ZeroMQ's queue (a peer that floods with requests without waiting for answers only waits longer).
MAX_WAITING = 4096


class ControllerFirst:
    """Hands out `responder`'s requests, those whose peer `drives` first, the others in arrival order."""

    def __init__(self, responder: Responder, drives: Callable[[bytes], bool], max_waiting: int = MAX_WAITING) -> None:
        self.responder = responder
        self.drives = drives
        self.max_waiting = max_waiting
        self._controllers: deque[Any] = deque()
        self._others: deque[Any] = deque()

    def next(self, timeout: float) -> Any | None:
        """The request to serve now, waiting up to `timeout` seconds for one; None when none came."""
        if not self._controllers and not self._others:
            request = self.responder.receive(timeout)
            if request is None or self.drives(request.peer):
                return request  # a lone controller's round trip pays one lookup
            self._others.append(request)
        return self.take()

    def take(self) -> Any | None:
        """The request to serve now, or None when none waits; never blocks."""
        self._gather()
        if self._controllers:
            return self._controllers.popleft()
        if self._others:
            return self._others.popleft()
        return None

    def _gather(self) -> None:
        while len(self._others) < self.max_waiting:
            request = self.responder.try_receive()
            if request is None:
                return
            (self._controllers if self.drives(request.peer) else self._others).append(request)
