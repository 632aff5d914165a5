"""A free run shows its observers the state as it steps: every step while it keeps to
FREE_RUN_STATES_PER_SECOND, bursts of up to FREE_RUN_STATE_BURST (a server catching up), fewer when it steps
faster for longer, and the last state when it stops."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from coupler.serve.frame_observer import FREE_RUN_STATE_BURST, FREE_RUN_STATES_PER_SECOND, observed
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


def test_a_free_run_keeping_to_the_rate_shows_every_step():
    seen = _StepsSeen()
    responder = observed(_SteppingResponder(), seen)  # type: ignore[arg-type]
    for _ in range(5):
        responder.step()
        time.sleep(1.5 / FREE_RUN_STATES_PER_SECOND)
    responder.close()
    assert seen.steps == [1, 2, 3, 4, 5]


def test_a_burst_of_steps_catching_up_shows_every_step():
    seen = _StepsSeen()
    responder = observed(_SteppingResponder(), seen)  # type: ignore[arg-type]
    burst = int(FREE_RUN_STATE_BURST)
    for _ in range(burst):
        responder.step()
    assert seen.steps == list(range(1, burst + 1))


def test_a_free_run_stepping_faster_for_longer_shows_fewer_states_and_the_last_at_the_end():
    seen = _StepsSeen()
    responder = observed(_SteppingResponder(), seen)  # type: ignore[arg-type]
    started = time.monotonic()
    for _ in range(5000):
        responder.step()
    took = time.monotonic() - started
    responder.close()
    assert seen.steps[0] == 1 and seen.steps[-1] == 5000
    assert len(seen.steps) <= FREE_RUN_STATE_BURST + took * FREE_RUN_STATES_PER_SECOND + 2 < 5000
