"""A free run shows its observers the state as it steps: every step while steps are at least
FREE_RUN_STATE_INTERVAL of wall clock apart, fewer when it steps faster, and the last state when it stops."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from coupler.serve.frame_observer import FREE_RUN_STATE_INTERVAL, observed
from coupler.serve.server_stats import ServerStats


@dataclass
class _Sim:
    stats: ServerStats = field(default_factory=ServerStats)
    simulation: object = "the simulation"


class _SteppingResponder:
    """The part of a Responder a free run's stepping touches."""

    endpoint = "ipc://nowhere"

    def __init__(self) -> None:
        self.sim = _Sim()

    def step(self) -> None:
        self.sim.stats.steps += 1

    def close(self) -> None:
        pass


class _StepsSeen:
    def __init__(self) -> None:
        self.steps: list[int] = []

    def on_step(self, simulation: object, step: int, wall: float) -> None:
        self.steps.append(step)


def test_a_free_run_stepping_slower_than_the_interval_shows_every_step():
    seen = _StepsSeen()
    responder = observed(_SteppingResponder(), seen)  # type: ignore[arg-type]
    for _ in range(5):
        responder.step()
        time.sleep(FREE_RUN_STATE_INTERVAL * 1.5)
    responder.close()
    assert seen.steps == [1, 2, 3, 4, 5]


def test_a_free_run_stepping_faster_than_the_interval_shows_fewer_states_and_the_last_at_the_end():
    seen = _StepsSeen()
    responder = observed(_SteppingResponder(), seen)  # type: ignore[arg-type]
    started = time.monotonic()
    for _ in range(2000):
        responder.step()
    took = time.monotonic() - started
    responder.close()
    assert seen.steps[0] == 1 and seen.steps[-1] == 2000
    assert len(seen.steps) <= took / FREE_RUN_STATE_INTERVAL + 2 < 2000
