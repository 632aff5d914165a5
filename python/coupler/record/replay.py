"""Replaying a recording: send its requests again, in order, and compare every answer, bit for bit.

Works for recordings of one controller at a time (any number of sessions,
one after the other): each recorded request is followed by its answer. A
controller's goodbye (an Error request) is sent and the connection renewed,
as the next recorded controller came on a connection of its own.

A recording of a batched server (`--worlds N`) is replayed whole, against a
server of as many worlds; each answer for every world is compared whole, or
only in one world's readings and time (`world`).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass

from coupler.limits import REQUEST_TIMEOUT
from coupler.record.divergence import Difference, first_difference
from coupler.record.recording import Recording
from coupler.record.world_recording import WorldLayout
from coupler.transport.client import Client
from coupler.transport.options import TransportOptions
from coupler.wire.codec import decode, encode
from coupler.wire.errors import Error
from coupler.wire.messages import HandshakeMessage

log = logging.getLogger(__name__)


def _scene_frame(frame: bytes) -> bytes:
    """A handshake's frame of its scene alone (`HandshakeMessage.scene`: a recording server offers no shared
    memory, a replaying one may); any other frame as it is."""
    message = decode(frame)
    return encode(message.scene()) if isinstance(message, HandshakeMessage) else frame


class ReplayError(Error):
    """The recording cannot be replayed (answers without requests, a server that does not answer)."""


@dataclass(frozen=True)
class Divergence:
    step: int  # the Controls answered so far, this one included (0: before the first Control)
    kind: str  # the kind of the recorded answer
    difference: Difference
    world: int | None = None  # the world whose answers were compared, None for all of them

    def __str__(self) -> str:
        d = self.difference
        where = f"object '{d.object}', " if d.object else ""
        where = where if self.world is None else f"world {self.world}, {where}"
        return (f"diverged at step {self.step} ({self.kind} answer): {where}field {d.field}: "
                f"recorded {d.recorded}, replayed {d.replayed}")


@dataclass(frozen=True)
class ReplayResult:
    steps: int  # Controls replayed and answered
    answers: int  # answers compared
    divergence: Divergence | None
    ended_early: str | None  # where a recording cut short ended (its writer was killed), None when complete

    @property
    def truncated(self) -> bool:
        return self.ended_early is not None

    def __str__(self) -> str:
        if self.divergence is not None:
            return str(self.divergence)
        return f"identical, {self.steps} steps ({self.answers} answers compared)"


def replay(path: str, address: str, timeout: float = REQUEST_TIMEOUT, transport: TransportOptions | None = None,
           world: int | None = None) -> ReplayResult:
    """Re-drive the server at `address` with the requests recorded in `path`; stop at the first divergence (of
    world `world`'s readings in answers for every world, when given).

    `timeout` (seconds, default `coupler.limits.REQUEST_TIMEOUT`) bounds every request. Raises ReplayError
    when the server does not answer or the recording has answers without requests.
    """
    recording = Recording(path)
    keywords = (transport or TransportOptions()).client_keywords()
    replayed: deque[bytes] = deque()
    steps = answers = 0
    layout: WorldLayout | None = None  # a batched server's rows, when one world's are compared
    client = Client(address, timeout=timeout, **keywords)
    try:
        for message in recording:
            if message.request:
                client.send_frame(message.data)
                if message.kind == "Error":
                    # A goodbye gets no answer; closing delivers it (linger), and the next controller connects anew.
                    client.close()
                    client = Client(address, timeout=timeout, **keywords)
                    continue
                try:
                    replayed.append(client.receive_frame(timeout))
                except Error as error:
                    raise ReplayError(f"no answer to the recorded {message.kind} after step {steps}: {error}") from None
                if message.kind == "Control":
                    steps += 1
            elif message.answer:
                if not replayed:
                    raise ReplayError("the recording has an answer without a request before it: recordings of "
                                      "several controllers at once cannot be replayed")
                if world is not None and message.kind == "Handshake":
                    handshake = decode(message.data)
                    layout = WorldLayout(handshake) if isinstance(handshake, HandshakeMessage) else None
                theirs = replayed.popleft()
                if message.kind == "Handshake":
                    message_data, theirs = _scene_frame(message.data), _scene_frame(theirs)
                else:
                    message_data = message.data
                difference = (first_difference(message_data, theirs) if layout is None or world is None
                              else layout.difference(message_data, theirs, world))
                answers += 1
                if difference is not None:
                    return ReplayResult(steps, answers, Divergence(steps, message.kind, difference, world),
                                        recording.ended_early)
    finally:
        client.close()
    return ReplayResult(steps, answers, None, recording.ended_early)
