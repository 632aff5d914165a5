"""Transport options, with their defaults written once: what a server or client
sets on its socket for liveness (heartbeats), size (frame limit) and security
(CurveZMQ), the defaults read from `coupler.limits`. The command-line flags (`coupler.cli.transport_flags`), `Client`,
`Session` and `Server` all take their defaults from here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coupler import limits


@dataclass(frozen=True)
class TransportOptions:
    """Socket options of one end of a connection.

    `heartbeat` (seconds; 0 turns heartbeats off) and `heartbeat_timeout`
    (seconds without traffic before the connection is dropped),
    `max_frame_bytes` (0: no limit), `handshake_timeout` (a server's
    seconds for a new connection to finish its handshake; 0: no limit). CurveZMQ: `curve_key_pair` is this
    end's own Z85 (public, secret) keys; a server also takes
    `curve_allowed_clients` (Z85 public keys), a client `curve_server_key`.
    """

    heartbeat: float = limits.HEARTBEAT
    heartbeat_timeout: float = limits.HEARTBEAT_TIMEOUT
    max_frame_bytes: int = limits.MAX_FRAME_BYTES
    handshake_timeout: float = limits.HANDSHAKE_TIMEOUT
    curve_key_pair: tuple[bytes, bytes] | None = None
    curve_allowed_clients: tuple[bytes, ...] = ()
    curve_server_key: bytes | None = None

    @property
    def curve(self) -> bool:
        return self.curve_key_pair is not None

    def server_keywords(self) -> dict[str, Any]:
        """The keywords of `coupler._native.Server` (and of the serving responders)."""
        keywords: dict[str, Any] = {
            "heartbeat": self.heartbeat,
            "heartbeat_timeout": self.heartbeat_timeout,
            "max_frame_bytes": self.max_frame_bytes,
            "handshake_timeout": self.handshake_timeout,
        }
        if self.curve_key_pair is not None:
            keywords["curve_key_pair"] = self.curve_key_pair
            keywords["curve_allowed_clients"] = list(self.curve_allowed_clients)
        return keywords

    def client_keywords(self) -> dict[str, Any]:
        """The keywords of `coupler.Client` and `coupler.Session`."""
        keywords: dict[str, Any] = {
            "heartbeat": self.heartbeat,
            "heartbeat_timeout": self.heartbeat_timeout,
            "max_frame_bytes": self.max_frame_bytes,
        }
        if self.curve_server_key is not None:
            keywords["curve_server_key"] = self.curve_server_key
            keywords["curve_key_pair"] = self.curve_key_pair
        return keywords
