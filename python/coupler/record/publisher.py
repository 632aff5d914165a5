"""Publishing a server's traffic: a `FrameObserver` that sends every frame and every MuJoCo state on a
ZeroMQ PUB socket, to any number of subscribers (`coupler record`, a plotter, a dashboard).

The serving thread only hands each message to ZeroMQ without waiting; the
ZeroMQ I/O thread (no GIL) copies it to each subscriber. A subscriber that
does not keep up loses messages once its queue holds `hwm` of them: ZeroMQ
drops them for that subscriber alone and does not tell the publisher, so
subscribers count their losses from the sequence numbers (see
`coupler.record.frame_stream`). The socket is an XPUB, so the publisher
sees each new subscription and sends it the scene (metadata and model).

One socket may be bound to several addresses, each with its own queue
limit and security: `--publish` (CURVE as the serving socket, when the
server has keys) and the private ipc:// address `--record`'s writer process
reads from, with a queue deep enough that it loses nothing in practice.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import zmq

from coupler.record.frame_stream import (
    HEADER,
    STATE,
    end_message,
    frame_message,
    frame_topic,
    nanoseconds,
    scene_message,
)
from coupler.record.state_frame import encode_state
from coupler.serve.simulation import Simulation
from coupler.transport.options import TransportOptions
from coupler.wire.errors import Error

log = logging.getLogger(__name__)

DEFAULT_HWM = 1000  # messages queued per subscriber before it loses messages (ZeroMQ's default)
SUBSCRIPTIONS_EVERY = 0.05  # seconds between looks for new subscribers while frames flow
LINGER = 1.0  # seconds close() gives queued messages to leave
# Bytes from which ZeroMQ is lent the message instead of copying it: below, a copy is cheaper than the
# bookkeeping of a loan.
ZERO_COPY_FROM = 65536


class _AllowList:
    """The ZAP callback of the publisher's CURVE: the same clients the serving socket accepts."""

    def __init__(self, keys: tuple[bytes, ...]) -> None:
        self._keys = frozenset(keys)

    def callback(self, domain: str, key: bytes) -> bool:
        if key in self._keys:
            return True
        log.warning("publisher refused a subscriber whose key is not allowed: %s", key[:40].decode("ascii", "replace"))
        return False


class FramePublisher:
    """Publishes what a server sees. Bind it (`bind`) before serving; `close()` tells subscribers the end."""

    def __init__(self, metadata: dict[str, dict[str, str]] | None = None,
                 attachments: dict[str, tuple[str, bytes]] | None = None) -> None:
        self._context = zmq.Context(1)
        self._socket = self._context.socket(zmq.XPUB)
        self._socket.setsockopt(zmq.XPUB_VERBOSE, 1)  # every subscriber's subscription, so each gets the scene
        self._socket.setsockopt(zmq.LINGER, int(LINGER * 1000))
        self._scene = scene_message(metadata or {}, attachments or {})
        self._authenticator: Any = None
        self._sequence = 0
        self._topic_sequences: dict[bytes, int] = {}
        self._next_look = 0.0
        self.subscriptions = 0
        self.endpoints: list[str] = []

    @property
    def sent(self) -> int:
        """Frame messages handed to ZeroMQ."""
        return self._sequence

    def bind(self, address: str, hwm: int = DEFAULT_HWM, transport: TransportOptions | None = None,
             private: bool = False) -> str:
        """Listen on `address` with a queue of `hwm` messages per subscriber; with `transport` carrying CURVE keys,
        only the clients it allows may subscribe, encrypted. A `private` address (the recording's) is left out
        of the summary. Returns the bound endpoint; coupler.Error when the address cannot be bound."""
        self._socket.setsockopt(zmq.SNDHWM, hwm)
        curve = transport is not None and transport.curve
        if curve:
            assert transport is not None and transport.curve_key_pair is not None
            self._start_authenticator(transport.curve_allowed_clients)
            self._socket.curve_publickey, self._socket.curve_secretkey = transport.curve_key_pair
        self._socket.setsockopt(zmq.CURVE_SERVER, 1 if curve else 0)
        try:
            self._socket.bind(address)
        except zmq.ZMQError as error:
            raise Error(f"cannot publish on {address[:200]}: {error}") from None
        endpoint = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        if not private:
            self.endpoints.append(endpoint)
        return endpoint

    def _start_authenticator(self, allowed: tuple[bytes, ...]) -> None:
        if self._authenticator is not None:
            return
        from zmq.auth.thread import ThreadAuthenticator

        self._authenticator = ThreadAuthenticator(self._context, log=logging.getLogger(f"{__name__}.zap"))
        self._authenticator.start()
        self._authenticator.configure_curve_callback(domain="*", credentials_provider=_AllowList(allowed))

    def wait_for_subscribers(self, count: int, timeout: float) -> bool:
        """Wait up to `timeout` seconds until `count` subscriptions have arrived; True when they have."""
        deadline = time.monotonic() + timeout
        while self.subscriptions < count:
            left = deadline - time.monotonic()
            if left <= 0 or not self._socket.poll(int(left * 1000) + 1, zmq.POLLIN):
                return self.subscriptions >= count
            self._welcome()
        return True

    def _welcome(self) -> None:
        """Read the subscriptions that arrived; send the scene once for those that are new."""
        new = False
        while True:
            try:
                subscription = self._socket.recv(zmq.NOBLOCK)
            except zmq.Again:
                break
            if subscription[:1] == b"\x01":
                self.subscriptions += 1
                new = True
        if new:
            self._socket.send_multipart(self._scene, zmq.NOBLOCK)

    def _send(self, topic: bytes, payload: bytes, wall: float, simulated_time: float | None) -> None:
        topic_sequence = self._topic_sequences.get(topic, 0)
        self._topic_sequences[topic] = topic_sequence + 1
        header = HEADER.pack(self._sequence, topic_sequence, nanoseconds(wall), nanoseconds(simulated_time))
        self._sequence += 1
        message = frame_message(topic, header, payload)
        self._socket.send(message, zmq.NOBLOCK, copy=len(message) < ZERO_COPY_FROM)
        now = time.monotonic()
        if now >= self._next_look:
            self._next_look = now + SUBSCRIPTIONS_EVERY
            self._welcome()

    def on_request(self, frame: bytes, peer: bytes, wall: float) -> None:
        self._send(frame_topic(True, frame), frame, wall, None)

    def on_answer(self, frame: bytes, peer: bytes, wall: float, simulated_time: float | None) -> None:
        self._send(frame_topic(False, frame), frame, wall, simulated_time)

    def on_step(self, simulation: Simulation, step: int, wall: float) -> None:
        data = getattr(simulation, "data", None)  # a MuJoCo scene's mjData; other simulations have no state to keep
        if data is None:
            return
        self._send(STATE, encode_state(data.time, step, data.qpos, data.qvel, data.act, data.ctrl), wall, data.time)

    def send_end(self) -> None:
        """Tell every subscriber the server has stopped and how many frames were sent (safe to repeat: the end
        message may itself be lost by a subscriber that is behind)."""
        self._socket.send(end_message(self._sequence), zmq.NOBLOCK)

    def close(self) -> None:
        """Send the end and close (queued messages get up to LINGER seconds to leave); safe to call twice."""
        if self._socket.closed:
            return
        self.send_end()
        self._socket.close()
        if self._authenticator is not None:
            self._authenticator.stop()
        self._context.term()

    def summary(self) -> str:
        return (f"published:             {self._sequence} messages on {', '.join(self.endpoints)} to "
                f"{self.subscriptions} subscriptions in all (subscribers count their losses)")
