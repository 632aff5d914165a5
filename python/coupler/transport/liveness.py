"""Heartbeats and a frame size limit on a ZeroMQ socket: what the pyzmq
Client sets before connecting or binding, so that a dead peer is noticed and
an oversized frame never reaches the decoder."""

from __future__ import annotations

import zmq

from coupler.wire.errors import Error


def set_liveness(socket: zmq.Socket, heartbeat: float, heartbeat_timeout: float, max_frame_bytes: int) -> None:
    """ZMTP heartbeats every `heartbeat` seconds (0: off), the connection dropped after
    `heartbeat_timeout` seconds without traffic; frames over `max_frame_bytes` refused (0: no limit)."""
    if heartbeat < 0 or heartbeat_timeout < 0 or max_frame_bytes < 0:
        raise Error("heartbeat, heartbeat timeout and max frame bytes must not be negative")
    if heartbeat > 0:
        socket.setsockopt(zmq.HEARTBEAT_IVL, round(heartbeat * 1000))
        socket.setsockopt(zmq.HEARTBEAT_TIMEOUT, round(heartbeat_timeout * 1000))
        # Asks the peer to drop the connection too when it hears nothing for that long.
        socket.setsockopt(zmq.HEARTBEAT_TTL, round(heartbeat_timeout * 1000))
    socket.setsockopt(zmq.MAXMSGSIZE, max_frame_bytes if max_frame_bytes > 0 else -1)
