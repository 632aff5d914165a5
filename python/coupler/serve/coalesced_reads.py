"""Reads coalesced: every SensorRequest between two changes of the state is
answered with the same frame, encoded once.

Thirty clients polling the state must not cost the serving thread thirty
encodings per step: that time is the controller's (docs/reliability.md, "30 readers
poll SensorRequest": readers never starve the controller). A read then costs the
server about what receiving and sending it costs.
"""

from __future__ import annotations

from collections.abc import Callable

from coupler.serve.simulation_server import SimulationServer


class CoalescedReads:
    """Answers reads of `sim`'s state with `encode_state()`'s frame, made again only once the state may have changed.

    The state changes only by steps, applied Controls, resets and the chunks
    of a long Control, which `sim.stats` counts; every read is counted there
    as `handle` counts it.
    """

    def __init__(self, sim: SimulationServer, encode_state: Callable[[], bytes]) -> None:
        self.sim = sim
        self.encode_state = encode_state
        self.encoded = 0  # frames made, for tests
        self._version: tuple[int, int, int, int] | None = None
        self._frame = b""

    def answer(self) -> bytes:
        """The frame answering a SensorRequest now."""
        stats = self.sim.stats
        stats.requests += 1
        stats.sensor_requests += 1
        version = (stats.steps, stats.controls, stats.resets, stats.chunks)
        if version != self._version:
            self._frame = self.encode_state()
            self._version = version
            self.encoded += 1
        return self._frame
