"""What a run of the server did, counted for the summary printed on exit."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ServerStats:
    """What a run did, for the summary printed on exit."""

    requests: int = 0
    handshakes: int = 0
    controls: int = 0
    steps: int = 0
    steps_without_control: int = 0
    sensor_requests: int = 0
    resets: int = 0
    errors_sent: int = 0
    sessions_ended: int = 0
    refused_busy: int = 0  # requests to drive refused with SERVER_BUSY
    peers_left: int = 0  # controllers whose connection was reported closed
    # Chunks of long Controls taken (a chunk, or a hot path's run while one is stepped): a long Control's steps count
    # in `steps` once it is taken, and the state changes with each of its chunks.
    chunks: int = 0
