"""The states of a publishing server (`coupler serve --publish ADDR`), as a view reads them: the latest only.

The view subscribes to the scene (the model, sent to each new connection
first), the MuJoCo states and the end of the stream, nothing else. Each poll
drains what has arrived and keeps the newest state: a view that draws more
slowly than the server steps skips states rather than falling behind, and
its socket holds few messages, so beyond them ZeroMQ drops states for this
subscriber alone; the server never waits for a view.

What the stream says or fails to say becomes `status`, one line: waiting
for the scene, a server that stopped or went quiet, a state that does not
fit the scene's model (another scene's), a scene that changed.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import zmq

from coupler.record.frame_stream import END_TOPIC, SCENE_TOPIC, STATE, StreamError, parse, parse_scene, topic_of
from coupler.record.scene_record import MODEL_BINARY, SCENE_METADATA
from coupler.record.subscriber_socket import subscriber_socket
from coupler.transport.options import TransportOptions
from coupler.view.shown_state import ShownState, StateMismatch, decoded_state, world_of
from coupler.wire.errors import Error
from coupler.wire.peer_text import shown

if TYPE_CHECKING:
    import mujoco

log = logging.getLogger(__name__)

RCVHWM = 64  # messages this subscriber's socket holds; beyond them the publisher drops states for it
DRAIN_AT_MOST = 10_000  # messages read in one poll, so that a flood still leaves time to draw
DEFAULT_QUIET = 2.0  # seconds without a state after which the stream is said to have stopped
_ADDRESS_SHOWN = 200  # characters of an address in a message


@dataclass(frozen=True)
class Scene:
    model: mujoco.MjModel
    name: str  # as the server names it (peer text, made safe to show)
    binary: bytes  # the compiled model, to tell a new scene from the same one sent again


def _scene_of(parts: list[bytes]) -> Scene:
    import mujoco

    metadata, attachments = parse_scene(parts)
    if MODEL_BINARY not in attachments:
        raise StreamError("the server's scene carries no MuJoCo model: it is not a MuJoCo scene, nothing to draw")
    binary = attachments[MODEL_BINARY][1]
    try:
        model = mujoco.MjModel.from_binary_path(MODEL_BINARY, {MODEL_BINARY: binary})
    except ValueError as error:
        raise StreamError(f"the server's model does not load in MuJoCo {mujoco.__version__}: "
                          f"{' '.join(str(error).split())[:300]}") from None
    return Scene(model, shown(metadata.get(SCENE_METADATA, {}).get("scene", "?"), 100), binary)


class LiveStream:
    """Subscribes to `address`; `poll()` gives the newest state that arrived. coupler.Error when the address
    cannot be subscribed to, or (`wait_for_scene`) no scene arrives in time."""

    def __init__(self, address: str, transport: TransportOptions | None = None, quiet_after: float = DEFAULT_QUIET,
                 monotonic=time.monotonic) -> None:
        self.address = address
        self.shown_address = address[:_ADDRESS_SHOWN]
        self.scene: Scene | None = None
        self.scene_error: str | None = None  # why the first scene that arrived cannot be drawn
        self.scene_changes = 0  # how often a different scene arrived; the front end redraws when it grows
        self.status = f"waiting for the scene from {self.shown_address}"
        self.received = 0  # states received
        self.lost = 0  # states the publisher dropped for this subscriber (gaps in their sequence numbers)
        self._quiet_after = quiet_after
        self._monotonic = monotonic
        self._last_state_at: float | None = None
        self._expected: int | None = None
        self._ended = False
        self._context = zmq.Context(1)
        self._socket = subscriber_socket(self._context, RCVHWM, transport)
        for topic in (SCENE_TOPIC, STATE, END_TOPIC):
            self._socket.setsockopt(zmq.SUBSCRIBE, topic)
        try:
            self._socket.connect(address)
        except zmq.ZMQError as error:
            self.close()
            raise Error(f"cannot subscribe to {self.shown_address}: {error}") from None

    def wait_for_scene(self, timeout: float) -> Scene:
        """Wait up to `timeout` seconds for the scene (the model to draw)."""
        deadline = self._monotonic() + timeout
        while self.scene is None:
            left = deadline - self._monotonic()
            if self.scene_error is not None:
                raise Error(f"cannot view {self.shown_address}: {self.scene_error}")
            if left <= 0:
                raise Error(f"no scene from {self.shown_address} within {timeout:g} s: is a server publishing there "
                            "(coupler serve --publish ADDR)?")
            self.poll(min(left, 0.1))
        return self.scene

    def poll(self, timeout: float) -> ShownState | None:
        """Wait up to `timeout` seconds for messages, read all that arrived, and return the newest state that fits
        the scene (None when none came)."""
        newest: bytes | None = None
        if self._socket.poll(int(max(0.0, timeout) * 1000)):
            for _ in range(DRAIN_AT_MOST):
                try:
                    parts = self._socket.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                newest = self._take(parts, newest)
        state = None
        if newest is not None and self.scene is not None:
            try:
                state = decoded_state(newest, self.scene.model)
            except StateMismatch as error:
                self._say(str(error))
        now = self._monotonic()
        if state is not None:
            self._last_state_at = now
            self._ended = False
            self._say(f"live from {self.shown_address}, scene '{self.scene.name}'")
        elif (not self._ended and self._last_state_at is not None
              and now - self._last_state_at >= self._quiet_after):
            self._say(f"no state from {self.shown_address} for {self._quiet_after:g} s: the stream stopped; "
                      "showing the last state")
        return state

    def _take(self, parts: list[bytes], newest: bytes | None) -> bytes | None:
        topic = topic_of(parts)
        try:
            if topic == SCENE_TOPIC:
                self._take_scene(parts)
                return None  # states before a new scene are of the old one
            if topic == END_TOPIC:
                self._ended = True
                self._say(f"the server at {self.shown_address} stopped: showing its last state")
                return newest
            message = parse(parts)
        except StreamError as error:
            if topic == SCENE_TOPIC and self.scene is None:
                self.scene_error = str(error)
            self._say(f"ignored a message from {self.shown_address}: {error}")
            return newest
        self.received += 1
        if self._expected is not None and message.topic_sequence > self._expected:
            self.lost += message.topic_sequence - self._expected
        self._expected = message.topic_sequence + 1
        return message.payload if world_of(message.payload) == 0 else newest

    def _take_scene(self, parts: list[bytes]) -> None:
        scene = _scene_of(parts)
        if self.scene is None:
            self._say(f"scene '{scene.name}' from {self.shown_address}: waiting for its first state")
        elif scene.binary == self.scene.binary:
            return  # the same scene, sent again after a reconnection
        else:
            self.scene_changes += 1
            self._say(f"the server at {self.shown_address} now serves another scene ('{scene.name}'): redrawn")
        self.scene = scene
        self._expected = None

    def _say(self, status: str) -> None:
        if status != self.status:
            log.info("%s", status)
        self.status = status

    def close(self) -> None:
        if not self._socket.closed:
            self._socket.close()
            self._context.term()
