"""Who may drive a simulation: the controllers holding it, their leases and their robots.

A controller holds the simulation from its HandshakeInit (or its first
Control, for controllers that never handshake, as Click's demo client does)
until it ends its session, its lease lapses or its connection is reported
closed. While `capacity` controllers hold it, anyone else asking to drive is
refused with SERVER_BUSY; reading state never needs a hold, and never renews
one (a monitor that handshakes once to learn the scene and then only reads
would otherwise keep the real controller out for as long as it runs).

A controller whose lease lapsed missed steps the others took: its next
Control or Reset is refused with SESSION_ENDED until it handshakes again,
so it never receives a state it did not step to without being told.

With several controllers (lockstep only), each drives the robots its
Controls name and no robot is driven by two; a step waits until every
controller's Control for it has arrived (`rounds`, a C++ ControlRounds, holds
the waiting Controls, for the Python loop and the C++ hot path alike).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from coupler import _native
from coupler.wire.errors import ProtocolError
from coupler.wire.messages import ErrorCode

DEFAULT_LEASE = 5.0

# How many lapsed controllers are remembered (oldest forgotten first): bounds the memory a stream of peers can take.
MAX_REMEMBERED_LAPSES = 4096


@dataclass
class Controller:
    """One controller holding the simulation."""

    peer: bytes
    seen: float  # when its last request arrived (monotonic seconds)
    robots: set[str] = field(default_factory=set)  # claimed with its Controls (several controllers only)
    accepted: bool = False  # one of its requests to drive was carried out (a refused first one takes no place)


class ControllerSessions:
    """The controllers that hold a simulation, at most `capacity` at once.

    `lease` is how long (seconds) a controller keeps its hold without sending
    anything; None never lets it lapse. A lapsed lease matters only when
    someone else wants in (or, with several controllers, when the others wait
    for its Control); a controller whose Control is waiting never lapses.
    """

    def __init__(self, capacity: int = 1, lease: float | None = DEFAULT_LEASE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        if lease is not None and lease <= 0:
            raise ValueError(f"lease must be positive or None, got {lease}")
        self.capacity = capacity
        self.lease = lease
        self.clock = clock
        self.active: dict[bytes, Controller] = {}
        self.lapsed = 0  # controllers whose lease lapsed, for the run's summary
        self._dropped: OrderedDict[bytes, None] = OrderedDict()  # peers whose lease lapsed, until they handshake
        # The Controls waiting for the others' (several controllers only).
        self.rounds = _native.ControlRounds()

    def admit(self, peer: bytes, rejoin: bool = False) -> Controller:
        """The controller `peer`, its lease renewed; a newcomer takes a free place or is refused with SERVER_BUSY.

        A peer whose lease lapsed is refused with SESSION_ENDED unless it
        `rejoin`s (its HandshakeInit): the others stepped on without it.
        """
        controller = self.active.get(peer)
        now = self.clock()
        if controller is not None:
            controller.seen = now
            return controller
        if not self.may_admit(peer):
            raise ProtocolError(self.busy_text(), ErrorCode.SERVER_BUSY)
        if peer in self._dropped:
            if not rejoin:
                raise ProtocolError(
                    "session ended: this controller's lease lapsed (no Control for "
                    f"{self.lease:g} s) and the simulation went on without it; "
                    "send HandshakeInit to drive again from the current state",
                    ErrorCode.SESSION_ENDED,
                )
            del self._dropped[peer]
        controller = self.active[peer] = Controller(peer, now)
        return controller

    def may_admit(self, peer: bytes) -> bool:
        """True when `peer` holds the simulation or a place is free for it (lapsing leases that have run out)."""
        if peer in self.active:
            return True
        if len(self.active) >= self.capacity:
            self.lapse()
        return len(self.active) < self.capacity

    def renew(self, peer: bytes) -> None:
        """Renew the lease of `peer` if it holds the simulation: it is waiting for its answer, not gone."""
        controller = self.active.get(peer)
        if controller is not None:
            controller.seen = self.clock()

    def leave(self, peer: bytes) -> Controller | None:
        """End the hold of `peer` (a Control of it that waits is dropped); the controller that left, or None."""
        self.rounds.drop(peer)
        return self.active.pop(peer, None)

    def lapse(self) -> list[Controller]:
        """End every hold whose lease has lapsed, and return those controllers."""
        if self.lease is None:
            return []
        cutoff = self.clock() - self.lease
        gone = [c for c in self.active.values() if c.seen <= cutoff and not self.rounds.holds(c.peer)]
        for controller in gone:
            del self.active[controller.peer]
            self._dropped[controller.peer] = None
        while len(self._dropped) > MAX_REMEMBERED_LAPSES:
            self._dropped.popitem(last=False)
        self.lapsed += len(gone)
        return gone

    def waiting(self) -> bool:
        """True when a controller's Control waits for the others' (several controllers only)."""
        return any(self.rounds.holds(peer) for peer in self.active)

    def next_lapse_in(self) -> float | None:
        """Seconds until the lease of a controller that others wait for lapses (0 when one has); None when none can."""
        if self.lease is None or not self.waiting():
            return None
        awaited = [c.seen for c in self.active.values() if not self.rounds.holds(c.peer)]
        if not awaited:
            return None
        return max(0.0, min(awaited) + self.lease - self.clock())

    def claim(self, controller: Controller, robots: Iterable[str]) -> bool:
        """Let `controller` drive `robots`, refusing (SERVER_BUSY) a robot another controller drives; whether it
        drives robots it did not before.

        Nothing is claimed when one robot is refused.
        """
        wanted = [robot for robot in robots if robot not in controller.robots]
        for robot in sorted(wanted):
            if any(robot in other.robots for other in self.active.values() if other is not controller):
                raise ProtocolError(
                    f"server busy: robot '{robot}' is driven by another controller; "
                    f"send Controls only for the robots this controller drives "
                    f"({', '.join(sorted(controller.robots)) or 'none yet'}) or for robots no one drives",
                    ErrorCode.SERVER_BUSY,
                )
        controller.robots.update(wanted)
        return bool(wanted)

    def holds(self, peer: bytes) -> bool:
        """True when a Control of `peer` waits for the others' of the same step."""
        return self.rounds.holds(peer)

    def hold(self, controller: Controller, steps: int) -> None:
        """`controller`'s Control, applied, waits for the others' of the same step, asking for `steps`."""
        self.rounds.hold(controller.peer, steps)

    def round_complete(self) -> bool:
        """True when every controller holding the simulation has a Control waiting for this step."""
        return self.rounds.due(list(self.active)) is not None

    def take_round(self) -> tuple[list[bytes], int, list[Any]]:
        """The peers whose Controls this step answers, the steps it takes (`ControlRounds` says how many) and the
        requests to answer (those the loop attached)."""
        peers, steps, requests = self.rounds.take(list(self.active))
        self.round_taken(0.0)
        return peers, steps, requests

    def round_taken(self, ago: float) -> None:
        """A round was answered `ago` seconds ago: every lease runs from it (while its Control waited, a controller
        was waiting for the others)."""
        seen = self.clock() - ago
        for controller in self.active.values():
            controller.seen = seen

    def busy_text(self) -> str:
        if self.lease is None:
            when = "once it ends its session (sends an ErrorMessage) or disconnects"
        else:
            when = (f"after its lease lapses ({self.lease:g} s without a Control, Reset or HandshakeInit from it), "
                    f"or once it ends its session or disconnects")
        who = ("another controller drives this simulation" if self.capacity == 1
               else f"{self.capacity} controllers already drive this simulation, as many as it takes")
        return f"server busy: {who}; retry {when}"
