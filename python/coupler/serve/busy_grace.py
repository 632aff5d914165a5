"""A newcomer's request to drive is held back briefly before it is refused as busy.

A controller that leaves sends its goodbye (an ErrorMessage) on its own
connection, and the next one asks to drive on a new connection. ZeroMQ orders
nothing across connections: under load the server can read the newcomer's
request before the goodbye that frees the place, and would refuse it although
the place is free an instant later. So a request to drive (a Control, a
HandshakeInit or a Reset) from a peer that finds every place held is held
back for at most `GRACE` seconds while everything else is served; it is
served as soon as a place frees (a goodbye, a closed connection reported, a
lease that lapses) or once its grace has passed, and then admitted or refused
as ever. A peer has its grace once: asking again, it knows the server busy,
and its requests are refused at once as before. A truly busy server so
refuses a newcomer's first request to drive at most `GRACE` later (plus the
loop's own latency, a millisecond or so); its driving controller is not
slowed, as nothing waits for the held request.

What is held back is bounded (`MAX_HELD`, `MAX_HELD_BYTES`): beyond it a
request to drive is refused at once, so that a flood of them (perf.stress
sends 660 kB Controls as fast as they are refused) costs no more memory
than before. A peer's later requests wait behind its held one, so that it
is answered in the order it asked.

Every request enters Python through one gate, `arrived()`: those taken from
the socket (`NativeResponder.receive`) and those the C++ hot paths hand back.
"""

from __future__ import annotations

import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from typing import Any

from coupler.serve.controller_sessions import ControllerSessions
from coupler.wire.messages import MessageType

# Seconds a newcomer's request to drive waits for the place to free before it is served (and refused). A goodbye
# sent just before the newcomer connected is on its way on another connection: what keeps the server from reading it
# first is a ZeroMQ I/O thread carrying it (the leaving client's, the server's) that has not run yet. On a loaded
# machine that is about a scheduler time slice (a few ms; Linux's default latency target is 6 to 24 ms by the number
# of cores). 20 ms covers that with room to spare, and is small against the seconds a client waits for any answer.
# Measured on 2 loaded cores (two spinning processes), 1,000 controllers one after another, each on its own I/O
# thread: 13 (ipc) and 68 (tcp) refused as busy without the grace, none with it.
GRACE = 0.02
# Requests held back at once, and their bytes; beyond either, a request to drive is refused at once.
MAX_HELD = 64
MAX_HELD_BYTES = 1 << 20

# How many peers that had their grace are remembered (oldest forgotten first): bounds the memory a stream of peers
# can take; one forgotten has a grace again.
MAX_REMEMBERED = 4096

# The requests that take a place to drive (a refused one is answered SERVER_BUSY).
DRIVING = frozenset({MessageType.CONTROL, MessageType.HANDSHAKE_INIT, MessageType.RESET})


class BusyGrace:
    """Holds back, for `grace` seconds at most, the requests to drive of peers that `sessions` has no place for."""

    def __init__(self, sessions: ControllerSessions, grace: float = GRACE,
                 clock: Callable[[], float] = time.monotonic,
                 look_for_leavers: Callable[[], None] = lambda: None) -> None:
        """`look_for_leavers` ends the sessions of peers whose connection closed, asked while a request waits."""
        if grace < 0:
            raise ValueError(f"grace must be 0 or more seconds, got {grace}")
        self.sessions = sessions
        self.look_for_leavers = look_for_leavers
        self.grace = grace
        self.clock = clock
        self._held: deque[tuple[float, Any]] = deque()  # (when its grace ends, request), in arrival order
        self._peers: Counter[bytes] = Counter()  # how many requests each peer has held back
        self._bytes = 0
        self._had_grace: OrderedDict[bytes, None] = OrderedDict()  # peers held back until their grace ended

    def arrived(self, request: Any) -> Any | None:
        """`request`, to be served now, or None when it is held back (`release()` hands it out later)."""
        if request is None or self.grace <= 0:
            return request
        peer = request.peer
        if not (self._held and peer in self._peers) and not self._waits_for_a_place(request):
            return request
        size = request.size
        if len(self._held) >= MAX_HELD or self._bytes + size > MAX_HELD_BYTES:
            return request
        self._held.append((self.clock() + self.grace, request))
        self._peers[peer] += 1
        self._bytes += size
        return None

    def release(self) -> Any | None:
        """The held request to serve now (its grace passed, or a place is free), or None; never blocks.

        Held requests come out in the order they arrived: their graces end
        in that order, and a free place is free for any of them.
        """
        if not self._held:
            return None
        due, request = self._held[0]
        peer = request.peer
        ended = due <= self.clock()
        if not ended and not self._place_for(peer):
            return None
        self._held.popleft()
        if ended and not self._place_for(peer):
            self._had_grace[peer] = None
            while len(self._had_grace) > MAX_REMEMBERED:
                self._had_grace.popitem(last=False)
        self._peers[peer] -= 1
        if not self._peers[peer]:
            del self._peers[peer]
        self._bytes -= request.size
        return request

    def release_in(self) -> float:
        """Seconds until the first held request's grace ends (0 when it has); infinity when none is held."""
        if not self._held:
            return float("inf")
        return max(0.0, self._held[0][0] - self.clock())

    def __len__(self) -> int:
        return len(self._held)

    def _place_for(self, peer: bytes) -> bool:
        """True when `peer` may take a place now, a closed connection's reported too."""
        if self.sessions.may_admit(peer):
            return True
        self.look_for_leavers()
        return self.sessions.may_admit(peer)

    def _waits_for_a_place(self, request: Any) -> bool:
        if request.type not in DRIVING:
            return False
        sessions = self.sessions
        peer = request.peer
        # A holder's own requests, and anyone's while a place is free, are served as ever.
        return (peer not in sessions.active and len(sessions.active) >= sessions.capacity
                and peer not in self._had_grace)
