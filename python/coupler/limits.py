"""The defaults and limits both ends of a connection use, defined once in the
C++ library (coupler/wire/limits.hpp) and read from its binding, so the Python
options, the command-line flags and the C++ classes cannot drift apart.
Durations are in seconds."""

from __future__ import annotations

from coupler._native import limits as _native

__all__ = [
    "DEFAULT_ADDRESS",
    "HANDSHAKE_TIMEOUT",
    "HEARTBEAT",
    "HEARTBEAT_TIMEOUT",
    "HEARTBEAT_TIMEOUT_INTERVALS",
    "MAX_FRAME_BYTES",
    "LARGEST_FRAME_LIMIT",
    "MAX_HANDSHAKE_TIMEOUT",
    "MAX_HEARTBEAT",
    "MAX_RANGE",
    "MAX_STEPS_PER_CONTROL",
    "MAX_TIMEOUT",
    "MIN_HANDSHAKE_TIMEOUT",
    "MIN_HEARTBEAT",
    "MIN_TIMEOUT",
    "REQUEST_TIMEOUT",
]

DEFAULT_ADDRESS: str = _native.default_address
REQUEST_TIMEOUT: float = _native.request_timeout  # a client's wait for an answer
HEARTBEAT: float = _native.heartbeat  # silence before a ZMTP PING; 0 turns heartbeats off
HEARTBEAT_TIMEOUT_INTERVALS: int = _native.heartbeat_timeout_intervals
HEARTBEAT_TIMEOUT: float = _native.heartbeat_timeout  # silence before a connection is dropped
MAX_FRAME_BYTES: int = _native.max_frame_bytes  # larger frames are never read; 0: no limit
HANDSHAKE_TIMEOUT: float = _native.handshake_timeout  # for a new connection to finish its ZMTP handshake
MAX_STEPS_PER_CONTROL: int = _native.max_steps_per_control

# The widest values a command line takes (coupler's flags, the demo clients'): beyond them a value is a typo, and
# ZeroMQ's int milliseconds and int frame limit would overflow.
MIN_TIMEOUT: float = _native.min_timeout
MAX_TIMEOUT: float = _native.max_timeout
MIN_HEARTBEAT: float = _native.min_heartbeat
MAX_HEARTBEAT: float = _native.max_heartbeat
MIN_HANDSHAKE_TIMEOUT: float = _native.min_handshake_timeout
MAX_HANDSHAKE_TIMEOUT: float = _native.max_handshake_timeout
LARGEST_FRAME_LIMIT: int = _native.largest_frame_limit
MAX_RANGE: int = _native.max_range  # extra Control round trips a demo client's --range asks for
