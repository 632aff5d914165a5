"""A free run shows its observer, the publisher, the state as it steps: every step while it keeps to
FREE_RUN_STATES_PER_SECOND, bursts of up to FREE_RUN_STATE_BURST (a server catching up), fewer when it steps
faster for longer, and the last state when it stops. Seen by a subscriber, as `coupler record` sees them."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import zmq

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.mujoco.simulation import MujocoSimulation
from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, SCENE_TOPIC, parse, topic_of
from coupler.record.publisher import FramePublisher
from coupler.record.scene_record import scene_attachments, scene_metadata
from coupler.serve.frame_observer import FREE_RUN_STATE_BURST, FREE_RUN_STATES_PER_SECOND, observed
from coupler.serve.responder import Responder
from coupler.serve.server_stats import ServerStats
from coupler.serve.simulation import Simulation


@dataclass
class _Sim:
    simulation: Simulation
    stats: ServerStats = field(default_factory=ServerStats)


class _SteppingResponder:
    """The part of a Responder a free run's stepping touches: each step counted, the scene's state left as it is."""

    endpoint = "ipc://nowhere"

    def __init__(self, simulation: Simulation) -> None:
        self.sim = _Sim(simulation)

    def step(self) -> None:
        self.sim.stats.steps += 1

    def close(self) -> None:
        pass


PENDULUM = """
<mujoco>
  <worldbody>
    <body name="pole"><joint name="hinge" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.02"/></body>
  </worldbody>
</mujoco>
"""


@pytest.fixture(scope="module")
def simulation() -> Simulation:
    return MujocoSimulation.from_xml_string(PENDULUM)


@pytest.fixture
def steps_seen(simulation: Simulation, tmp_path) -> Iterator[Callable[[Callable[[Responder], None]], list[int]]]:
    """Run a free run's stepping over an observed responder; the step numbers of the states published."""
    publisher = FramePublisher(scene_metadata(simulation, "pendulum"), scene_attachments(simulation))
    subscriber = zmq.Context.instance().socket(zmq.SUB)
    subscriber.linger = 0
    subscriber.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    subscriber.connect(publisher.bind(f"ipc://{tmp_path}/published"))

    def run(stepping: Callable[[Responder], None]) -> list[int]:
        assert publisher.wait_for_subscribers(1, 10.0)
        stepping(observed(_SteppingResponder(simulation), publisher))  # type: ignore[arg-type]
        publisher.send_end()
        steps = []
        while subscriber.poll(5000):
            parts = subscriber.recv_multipart()
            if topic_of(parts) == END_TOPIC:
                return steps
            if topic_of(parts) != SCENE_TOPIC:
                steps.append(MujocoState.FromString(parse(parts).payload).step)
        raise AssertionError("no end message within 5 s")

    try:
        yield run
    finally:
        publisher.close()
        subscriber.close()


def test_a_free_run_keeping_to_the_rate_shows_every_step(steps_seen):
    def keeping_to_the_rate(responder: Responder) -> None:
        for _ in range(5):
            responder.step()
            time.sleep(1.5 / FREE_RUN_STATES_PER_SECOND)
        responder.close()

    assert steps_seen(keeping_to_the_rate) == [1, 2, 3, 4, 5]


def test_a_burst_of_steps_catching_up_shows_every_step(steps_seen):
    burst = int(FREE_RUN_STATE_BURST)

    def catching_up(responder: Responder) -> None:
        for _ in range(burst):
            responder.step()

    assert steps_seen(catching_up) == list(range(1, burst + 1))


def test_a_free_run_stepping_faster_for_longer_shows_fewer_states_and_the_last_at_the_end(steps_seen):
    took = 0.0

    def faster_for_longer(responder: Responder) -> None:
        nonlocal took
        started = time.monotonic()
        for _ in range(5000):
            responder.step()
        took = time.monotonic() - started
        responder.close()

    steps = steps_seen(faster_for_longer)
    assert steps[0] == 1 and steps[-1] == 5000
    assert len(steps) <= FREE_RUN_STATE_BURST + took * FREE_RUN_STATES_PER_SECOND + 2 < 5000
