"""A scene that gives C++ no parts to apply, step and read it through (`hot_path_parts()` None) takes no Controls:
each is refused with one line naming why, nothing is stepped, and the server goes on answering reads."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco")

from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.serve.simulation_server import SimulationServer  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from world_pendulums import PENDULUM  # noqa: E402


def _without_cpp_parts() -> MujocoSimulation:
    simulation = MujocoSimulation.from_xml_string(PENDULUM)
    simulation.hot_path_parts = lambda: None  # type: ignore[method-assign]
    return simulation


def _refused_control(sim: SimulationServer, peer: bytes = b"") -> None:
    answer = sim.handle(ControlMessage(objects={"arm": ObjectControl([0.5])}, steps=3), peer)
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.UNEXPECTED_MESSAGE
    assert answer.text == "unexpected message: this scene takes no Controls"


def test_a_lone_controllers_control_is_refused_and_nothing_steps():
    sim = SimulationServer(_without_cpp_parts())
    sim.handle(HandshakeInitMessage())
    _refused_control(sim)
    read = sim.handle(SensorRequestMessage())
    assert isinstance(read, SensorMessage) and read.simulated_time == 0.0
    assert read.objects["arm"].torques == [0.0]
    assert (sim.stats.controls, sim.stats.steps) == (0, 0)


def test_a_control_of_one_of_several_controllers_is_refused_and_nothing_is_held():
    sim = SimulationServer(_without_cpp_parts(), controllers=2)
    for peer in (b"one", b"two"):
        sim.handle(HandshakeInitMessage(), peer)
    _refused_control(sim, b"one")
    read = sim.handle(SensorRequestMessage(), b"two")
    assert isinstance(read, SensorMessage) and read.simulated_time == 0.0
    assert read.objects["arm"].torques == [0.0]
    assert sim.stats.controls == 0
