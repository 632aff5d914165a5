"""Publishing a server's traffic: the server's observer (a `coupler.serve.frame_observer.NativePublisher`)
that sends every frame and every MuJoCo state on a ZeroMQ XPUB socket, to any number of subscribers
(`coupler record`, a plotter, a dashboard).

The publishing is `coupler._native.FramePublisher` (C++, the one
implementation of the message format of `coupler.record.frame_stream`): the
serving thread only hands each message to ZeroMQ without waiting; ZeroMQ's
I/O thread copies it to each subscriber. A subscriber that does not keep up
loses messages once its queue holds `hwm` of them: ZeroMQ drops them for that
subscriber alone, and subscribers count their losses from the sequence
numbers. Each new connection, and it alone, gets the scene (metadata and
model) before anything else.

The publisher guards its peers as the serving socket does (the handshake
timeout and heartbeats of `TransportOptions`), holds at most
`max_connections` subscribers at once on the addresses it counts (all but the
recording's), lets a peer send only subscriptions to topics of up to 1023
bytes (a larger message closes its connection, anything else is dropped), and
closes the newest connections while peers hold more than `max_topics` topics.

Because it is C++, the lockstep hot path publishes through the same object
without coming back to Python (`native`, see `coupler.serve.hot_path`): the
Control, the state after its step and the answer, and each read with its
answer, exactly as this observer does on the Python path.

One publisher may be bound to several addresses, each with its own queue
limit and security: `--publish` (CURVE as the serving socket, with the same
allow-list, when the server has keys) and the private ipc:// address
`--record`'s writer process reads from, with a queue deep enough that it
loses nothing in practice.
"""

from __future__ import annotations

import logging

from coupler import _native
from coupler.record.frame_stream import STATE, frame_topic, scene_message
from coupler.record.world_states import encode_world_state, world_datas
from coupler.serve.simulation import Simulation
from coupler.transport.options import TransportOptions

log = logging.getLogger(__name__)

# Defined in C++ (coupler::PublisherBinding, FramePublisher, PublisherLimits):
DEFAULT_HWM: int = _native.FramePublisher.DEFAULT_HWM  # messages queued per subscriber before it loses messages
LINGER: float = _native.FramePublisher.DEFAULT_LINGER  # seconds close() gives queued messages to leave
MAX_CONNECTIONS: int = _native.FramePublisher.DEFAULT_MAX_CONNECTIONS  # subscribers at once; newer ones closed
MAX_TOPICS: int = _native.FramePublisher.DEFAULT_MAX_TOPICS  # distinct topics subscribed over all subscribers


def _refused(refusal: str) -> None:
    # The C++ ZAP handler and the publisher's guards pass each kind of refusal a few times a minute at most.
    log.warning("publisher %s", refusal)


class FramePublisher:
    """Publishes what a server sees. Bind it (`bind`) before serving; `close()` tells subscribers the end."""

    def __init__(self, metadata: dict[str, dict[str, str]] | None = None,
                 attachments: dict[str, tuple[str, bytes]] | None = None,
                 max_connections: int = MAX_CONNECTIONS, max_topics: int = MAX_TOPICS) -> None:
        scene = scene_message(metadata or {}, attachments or {})
        self.native = _native.FramePublisher(scene[1:], linger=LINGER,  # the parts after the topic
                                             max_connections=max_connections, max_topics=max_topics,
                                             on_refusal=_refused)
        self.endpoints: list[str] = []

    @property
    def sent(self) -> int:
        """Frame messages handed to ZeroMQ."""
        return self.native.sent

    @property
    def subscriptions(self) -> int:
        """Subscriptions seen in all."""
        return self.native.subscriptions

    def bind(self, address: str, hwm: int = DEFAULT_HWM, transport: TransportOptions | None = None,
             private: bool = False) -> str:
        """Listen on `address` with a queue of `hwm` messages per subscriber; with `transport` carrying CURVE keys,
        only the clients it allows may subscribe, encrypted. A `private` address (the recording's) is left out
        of the summary and of the connection cap. Returns the bound endpoint; coupler.Error when the address
        cannot be bound."""
        transport = transport or TransportOptions()
        curve: dict[str, object] = {}
        if transport.curve:
            curve = {"curve_key_pair": transport.curve_key_pair,
                     "curve_allowed_clients": list(transport.curve_allowed_clients),
                     "on_refused_client": _refused}
        # coupler.wire.errors.Error when it cannot be bound
        endpoint = self.native.bind(address, hwm, heartbeat=transport.heartbeat,
                                    heartbeat_timeout=transport.heartbeat_timeout,
                                    handshake_timeout=transport.handshake_timeout, counted=not private, **curve)
        if not private:
            self.endpoints.append(endpoint)
        return endpoint

    def wait_for_subscribers(self, count: int, timeout: float) -> bool:
        """Wait up to `timeout` seconds until `count` subscriptions have arrived; True when they have."""
        return self.native.wait_for_subscribers(count, max(0.0, timeout))

    def on_request(self, frame: bytes, peer: bytes, wall: float) -> None:
        self.native.publish(frame_topic(True, frame), frame, wall)

    def on_answer(self, frame: bytes, peer: bytes, wall: float, simulated_time: float | None) -> None:
        self.native.publish(frame_topic(False, frame), frame, wall, simulated_time)

    def on_step(self, simulation: Simulation, step: int, wall: float) -> None:
        worlds = world_datas(simulation)
        if worlds is not None:
            for world, data in enumerate(worlds):
                self.native.publish(STATE, encode_world_state(world, data, step), wall,
                                    data.time if world == 0 else None)
            return
        data = getattr(simulation, "data", None)  # a MuJoCo scene's mjData; other simulations have no state to keep
        if data is None:
            return
        self.native.publish_state(STATE, data.time, step, data.qpos, data.qvel, data.act, data.ctrl, wall,
                                  data.mocap_pos, data.mocap_quat)

    def send_end(self) -> None:
        """Tell every subscriber the server has stopped and how many frames were sent (safe to repeat: the end
        message may itself be lost by a subscriber that is behind)."""
        self.native.send_end()

    def close(self) -> None:
        """Send the end and close (queued messages get up to LINGER seconds to leave); safe to call twice."""
        self.native.close()

    def summary(self) -> str:
        return (f"published:             {self.sent} messages on {', '.join(self.endpoints)} to "
                f"{self.subscriptions} subscriptions in all (subscribers count their losses)")
