"""What a coupler server says about itself in its handshake: name, version, extensions."""

from __future__ import annotations

import dataclasses

from coupler.wire.messages import (
    EXTENSION_GOODBYE,
    EXTENSION_KEYFRAMES,
    EXTENSION_MOCAP,
    EXTENSION_RANGES,
    EXTENSION_STEPS,
    EXTENSION_VALUE_TYPES,
    HandshakeMessage,
    ServerInfo,
)
from coupler.wire.version import VERSION

__all__ = ["SERVER_NAME", "package_version", "server_info", "with_server_info"]

SERVER_NAME = "coupler"


def package_version() -> str:
    """The package's version (coupler.wire.version): the C++ library's, the one source."""
    return VERSION


def server_info() -> ServerInfo:
    """This server's ServerInfo: every coupler extension it serves."""
    return ServerInfo(
        name=SERVER_NAME,
        version=package_version(),
        extensions=[EXTENSION_STEPS, EXTENSION_GOODBYE, EXTENSION_RANGES, EXTENSION_VALUE_TYPES, EXTENSION_KEYFRAMES,
                    EXTENSION_MOCAP],
    )


def with_server_info(handshake: HandshakeMessage) -> HandshakeMessage:
    """The simulation's handshake, saying who serves it and what it takes.

    Extensions the simulation's own handshake announces (a batch of worlds
    serves "worlds") are kept, after the server's.
    """
    info = server_info()
    if handshake.server is not None:
        info.extensions += [e for e in handshake.server.extensions if e not in info.extensions]
    return dataclasses.replace(handshake, server=info)
