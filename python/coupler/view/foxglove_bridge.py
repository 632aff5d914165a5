"""`coupler view --addr ADDR --foxglove`: a publishing server's stream served to Foxglove over its WebSocket
protocol (foxglove-sdk's server), so Foxglove's 3D, Plot and Raw Messages panels follow a run live.

It is a subscriber like any other: it reads every message of the stream
(`coupler.view.foxglove_feed` says what goes out for each), and a bridge that
falls more than `RCVHWM` messages behind loses messages, not the server's
time. foxglove-sdk's server keeps at most its backlog of messages for each
Foxglove client and drops the oldest for one that is behind.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import foxglove
import zmq
from foxglove.websocket import ChannelView, ServerListener

from coupler.record.channels import SCENE_UPDATE_TOPIC, all_channels, descriptor_set
from coupler.record.frame_stream import FRAME_PREFIX
from coupler.record.subscriber_socket import subscriber_socket
from coupler.transport.options import TransportOptions
from coupler.view.foxglove_feed import FeedMessage, FoxgloveFeed
from coupler.wire.errors import Error

log = logging.getLogger(__name__)

RCVHWM = 10_000  # messages this subscriber's socket holds; beyond them the publisher drops messages for it
DRAIN_AT_MOST = 10_000  # messages read at a time, so that a flood still leaves time for the poses
_ADDRESS_SHOWN = 200  # characters of an address in a message


@dataclass
class BridgeCounts:
    sent: int = 0  # messages handed to Foxglove's server
    poses: int = 0  # of them, FrameTransforms derived here

    def summary(self, ignored: int) -> str:
        return f"{self.sent} messages sent to Foxglove ({self.poses} of body poses), {ignored} not passed on"


class FoxgloveBridge:
    """Subscribes to `address` and serves what it reads to Foxglove at ws://HOST:PORT (`url`); port 0 picks a
    free one. coupler.Error when the address cannot be subscribed to or the port not bound."""

    def __init__(self, address: str, transport: TransportOptions | None, host: str, port: int) -> None:
        self.shown_address = address[:_ADDRESS_SHOWN]
        self.feed = FoxgloveFeed()
        self._scene_wanted = threading.Event()  # a Foxglove client subscribed to the scene: send it again
        self._zmq = zmq.Context(1)
        self._socket = subscriber_socket(self._zmq, RCVHWM, transport)
        self._socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
        try:
            self._socket.connect(address)
        except zmq.ZMQError as error:
            self._close_socket()
            raise Error(f"cannot subscribe to {self.shown_address}: {error}") from None
        self._context = foxglove.Context()
        self._channels = {
            channel.topic: foxglove.Channel(
                channel.topic, message_encoding="protobuf", context=self._context,
                schema=foxglove.Schema(name=channel.schema_name, encoding="protobuf",
                                       data=descriptor_set(channel.file)))
            for channel in all_channels()}
        scene_wanted = self._scene_wanted

        class _Listener(ServerListener):
            def on_subscribe(self, client: object, channel: ChannelView) -> None:
                # foxglove-sdk calls this on its own thread: the serving loop sends the scene.
                if channel.topic == SCENE_UPDATE_TOPIC:
                    scene_wanted.set()

        try:
            self.server = foxglove.start_server(name="coupler", host=host, port=port, context=self._context,
                                                server_listener=_Listener())
        except Exception as error:  # foxglove-sdk raises its own error types for a port it cannot bind
            self._close_socket()
            raise Error(f"cannot serve Foxglove at {host}:{port}: {' '.join(str(error).split())[:300]}") from None
        self.url = f"ws://{host}:{self.server.port}"

    def run(self, stop: threading.Event, fps: float, duration: float | None = None,
            on_status: Callable[[str], None] = log.info, wait: float = 10.0) -> BridgeCounts:
        """Serve until `stop` or `duration` seconds; body poses at most `fps` times a second. Without a scene
        after `wait` seconds, say so once and go on waiting."""
        counts = BridgeCounts()
        period = 1.0 / fps
        deadline = None if duration is None else time.monotonic() + duration
        scene_due = time.monotonic() + wait
        had_scene = False
        next_poses = time.monotonic()
        while not stop.is_set() and (deadline is None or time.monotonic() < deadline):
            if self._socket.poll(int(period * 1000)):
                for _ in range(DRAIN_AT_MOST):
                    try:
                        parts = self._socket.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    for message in self.feed.take(parts):
                        self._send(message, counts)
            if self.feed.scene_update is not None and not had_scene:
                had_scene = True
                on_status(f"the scene from {self.shown_address} arrived")
            elif not had_scene and time.monotonic() >= scene_due:
                had_scene = True  # said once; the scene is passed on whenever it comes
                on_status(f"no scene from {self.shown_address} within {wait:g} s: is a server publishing there "
                          "(coupler serve --publish ADDR)? Still waiting")
            if self._scene_wanted.is_set() and self.feed.scene_update is not None:
                self._send(FeedMessage(SCENE_UPDATE_TOPIC, self.feed.scene_update, time.time_ns()), counts)
            if time.monotonic() >= next_poses:
                next_poses = time.monotonic() + period
                poses = self.feed.poses()
                if poses is not None:
                    counts.poses += 1
                    self._send(poses, counts)
            if self.feed.ended:
                # Foxglove keeps what it was sent; a server started again at the address is followed.
                self.feed.ended = False
                on_status(f"the server at {self.shown_address} stopped")
        return counts

    def _send(self, message: FeedMessage, counts: BridgeCounts) -> None:
        if message.topic == SCENE_UPDATE_TOPIC:
            # Every client subscribed so far gets it now: one that asked before the scene came needs it no more.
            self._scene_wanted.clear()
        self._channels[message.topic].log(message.payload, log_time=message.log_time)
        counts.sent += 1

    def _close_socket(self) -> None:
        if not self._socket.closed:
            self._socket.close()
            self._zmq.term()

    def close(self) -> None:
        self.server.stop()
        self._close_socket()
