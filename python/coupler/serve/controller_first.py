"""Controllers first: the order a lockstep loop serves waiting requests in.

ZeroMQ hands requests over in arrival order, so a controller's Control would
wait behind every reader's SensorRequest that came before it: thirty readers
polling the state took a controller from 4,000 to 300 steps/s. Instead,
whatever waits is taken from the socket at each turn, and a request of a
controller holding the simulation is served before anyone else's.

The others (readers, newcomers) get a share: while a controller drives, at
most `SHARE` of their requests are served after each of its requests; with
that share used, the loop waits up to `PATIENCE` for the controller's next
request before serving one more of theirs, so a controller that thinks
between steps never stalls them. A reader's request waits behind at most one
request of each controller and the others' before it; thirty readers then
cost a controller stepping as fast as it can about as much server time as
its own requests take, and their clients spend the rest waiting, not
competing with it for the processor.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import Any

from coupler.serve.responder import Responder

# Requests of peers that do not drive, taken from the socket and waiting their turn; beyond this many, the
# rest wait in ZeroMQ's queue (a peer that floods with requests without waiting for answers only waits longer).
MAX_WAITING = 4096
# Requests of others served after each request of a driving controller, before waiting for its next one.
SHARE = 1
# Seconds to wait for a driving controller's next request once the others' share is used: longer than a
# controller's own round trip (~0.1-0.3 ms), far shorter than the 0.5 s a reader may wait.
PATIENCE = 0.002


class ControllerFirst:
    """Hands out `responder`'s requests, those whose peer `drives` first, the others in arrival order.

    `driving()` tells whether any controller holds the simulation: without
    one, the others are served as fast as they come.
    """

    def __init__(self, responder: Responder, drives: Callable[[bytes], bool], driving: Callable[[], bool],
                 share: int = SHARE, patience: float = PATIENCE, max_waiting: int = MAX_WAITING,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.responder = responder
        self.drives = drives
        self.driving = driving
        self.share = share
        self.patience = patience
        self.max_waiting = max_waiting
        self.clock = clock
        self._controllers: deque[Any] = deque()
        self._others: deque[Any] = deque()
        self._credit = share  # of the others, until a controller's next request

    def next(self, timeout: float) -> Any | None:
        """The request to serve now, waiting up to `timeout` seconds for one; None when none came."""
        if not self._controllers and not self._others:
            request = self.responder.receive(timeout)
            if request is None:
                return None
            if self.drives(request.peer):
                self._credit = self.share  # a lone controller's round trip pays one lookup
                return request
            self._others.append(request)
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
            self._credit = self.share
        (self._controllers if self.drives(request.peer) else self._others).appendleft(request)

    def take(self) -> Any | None:
        """A controller's request, or one of the others' while their share lasts; None otherwise. Never blocks."""
        self._gather()
        if self._controllers:
            self._credit = self.share
            return self._controllers.popleft()
        if self._others and (self._credit > 0 or not self.driving()):
            self._credit -= 1
            return self._others.popleft()
        return None

    def take_any(self) -> Any | None:
        """The next request in the same order, the others' share aside; None when none waits. Never blocks."""
        self._gather()
        if self._controllers:
            return self._controllers.popleft()
        return self._others.popleft() if self._others else None

    def _wait_for_controller(self) -> Any:
        """With the others' share used: the controller's next request if it comes within `patience`, else theirs."""
        deadline = self.clock() + self.patience
        while len(self._others) < self.max_waiting:
            left = deadline - self.clock()
            if left <= 0:
                break
            request = self.responder.receive(left)
            if request is None:
                break
            if self.drives(request.peer):
                self._credit = self.share
                return request
            self._others.append(request)
        return self._others.popleft()

    def _gather(self) -> None:
        while len(self._others) < self.max_waiting:
            request = self.responder.try_receive()
            if request is None:
                return
            (self._controllers if self.drives(request.peer) else self._others).append(request)
