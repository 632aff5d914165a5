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

    def count_run(self, controls: int, reads: int, steps: int, steps_without_control: int = 0) -> None:
        """Count what a hot path served in one run: its Controls and reads, a request each, and the steps it took.
        Reads renew no lease (docs/reliability.md): they are only counted."""
        self.requests += controls + reads
        self.controls += controls
        self.sensor_requests += reads
        self.steps += steps
        self.steps_without_control += steps_without_control

    def count_failed_control(self, errors_sent: int = 1, counted: bool = False) -> None:
        """Count a Control a hot path could not apply or step, answered with the error (`errors_sent` answers: one
        per controller of a round): a request of its own, unless it was `counted` when taken (a long Control's
        chunks, a round)."""
        if not counted:
            self.requests += 1
        self.errors_sent += errors_sent
