"""The protocol flow of SimulationServer.handle, over the static scene."""

import dataclasses
from importlib import metadata

import pytest

from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    HandshakeMessage,
    ObjectControl,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from coupler.serve.simulation_server import SimulationServer
from coupler.scenes import load_scene
from coupler.scenes.static import StaticScene
from failing_stepper import failing_parts

ARM_HOME = [0.0, -0.785398, 0.0, -2.356194, 0.0, 1.570796, 0.785398]


@pytest.fixture(params=["static", "arm"])
def sim(request) -> SimulationServer:
    """The protocol behaves the same over the static scene and the MuJoCo arm scene."""
    return SimulationServer(load_scene(request.param, None))


def time_step(sim: SimulationServer) -> float:
    return sim.handshake.time_step


def control(*angles: float, steps: int = 0) -> ControlMessage:
    return ControlMessage(objects={"arm": ObjectControl(list(angles))}, steps=steps)


def test_handshake_init_is_answered_with_the_scene(sim):
    answer = sim.handle(HandshakeInitMessage())
    assert isinstance(answer, HandshakeMessage)
    assert dataclasses.replace(answer, server=None) == sim.simulation.handshake()
    assert "arm" in answer.objects


def test_the_handshake_names_the_server_and_its_package_version(sim):
    answer = sim.handle(HandshakeInitMessage())
    assert (answer.server.name, answer.server.version) == ("coupler", metadata.version("coupler"))


@pytest.mark.parametrize("extension", ["steps", "goodbye", "ranges"])
def test_the_handshake_announces_each_extension_the_server_takes(sim, extension):
    assert sim.handle(HandshakeInitMessage()).supports(extension)


def test_an_unsupported_version_gets_version_not_supported(sim):
    answer = sim.handle(HandshakeInitMessage(version=0))
    assert isinstance(answer, ErrorMessage)
    assert answer.code == ErrorCode.VERSION_NOT_SUPPORTED
    assert "version 0" in answer.text


def test_each_control_steps_exactly_once(sim):
    sim.handle(HandshakeInitMessage())
    times = [sim.handle(control(*ARM_HOME)).simulated_time for _ in range(3)]
    dt = time_step(sim)
    assert times == pytest.approx([dt, 2 * dt, 3 * dt])


def test_a_sensor_request_does_not_step(sim):
    sim.handle(control(*ARM_HOME))
    before = sim.handle(SensorRequestMessage())
    after = sim.handle(SensorRequestMessage())
    assert before == after
    assert before.simulated_time == pytest.approx(time_step(sim))


def test_the_steps_extension_holds_controls_for_that_many_steps(sim):
    assert sim.handle(control(*ARM_HOME, steps=10)).simulated_time == pytest.approx(10 * time_step(sim))
    assert sim.stats.steps == 10


def test_a_bad_control_is_refused_and_changes_nothing(sim):
    sim.handle(control(0.5, *ARM_HOME[1:]))
    before = sim.handle(SensorRequestMessage())
    answer = sim.handle(control(1.0))  # one value for seven controls
    assert isinstance(answer, ErrorMessage)
    assert answer.code == ErrorCode.CONTROL_MISMATCH
    assert sim.handle(SensorRequestMessage()) == before


def test_reset_restores_the_initial_state_and_is_answered_with_reset(sim):
    initial = sim.handle(SensorRequestMessage())
    for _ in range(20):
        sim.handle(control(0.3, *ARM_HOME[1:]))
    assert isinstance(sim.handle(ResetMessage()), ResetMessage)
    assert sim.handle(SensorRequestMessage()) == initial
    assert not sim.running


def test_an_error_from_the_controller_ends_its_session_without_an_answer(sim):
    sim.handle(HandshakeInitMessage())
    assert sim.handle(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="bye")) is None
    assert sim.session_ended.is_set()
    assert not sim.session_active


@pytest.mark.parametrize("message", [HandshakeMessage(), SensorMessage()])
def test_messages_only_servers_send_are_refused_as_unexpected(sim, message):
    answer = sim.handle(message)
    assert isinstance(answer, ErrorMessage)
    assert answer.code == ErrorCode.UNEXPECTED_MESSAGE
    assert type(message).__name__ in answer.text


def test_a_failing_simulation_gets_an_internal_error_and_the_server_goes_on(sim, monkeypatch):
    parts = failing_parts(sim.simulation.hot_path_parts(), "solver diverged")
    monkeypatch.setattr(sim.simulation, "hot_path_parts", lambda: parts)
    answer = sim.handle(control(*ARM_HOME))
    assert answer.code == ErrorCode.INTERNAL_ERROR
    assert "solver diverged" in answer.text
    assert isinstance(sim.handle(SensorRequestMessage()), SensorMessage)


def test_without_lockstep_a_control_applies_but_does_not_step():
    sim = SimulationServer(StaticScene(), lockstep=False)
    answer = sim.handle(control(0.4, *ARM_HOME[1:]))
    assert answer.simulated_time == 0.0
    assert answer.objects["arm"].angles[0] == 0.4
    assert sim.stats.steps == 0


def test_the_static_scene_carries_every_click_value_type():
    from coupler.wire.messages import ValueType

    handshake = SimulationServer(StaticScene()).handle(HandshakeInitMessage())
    seen = set()
    for described in handshake.objects.values():
        seen.update(described.control_types, described.joint_sensor_types, described.object_sensors)
        seen.update(described.control_events.values())
        for types in described.sensors.values():
            seen.update(types)
    assert seen == {t for t in ValueType if t < 100} - {ValueType.MULTIPLE}


def test_a_reset_with_a_state_starts_the_arm_scene_from_it():
    sim = SimulationServer(load_scene("arm", None))
    qpos = [0.3] + ARM_HOME[1:] + [0.0, 0.0, 0.1, 0.2, 0.775, 1.0, 0.0, 0.0, 0.0]
    assert isinstance(sim.handle(ResetMessage(qpos=qpos)), ResetMessage)
    readings = sim.handle(SensorRequestMessage())
    assert readings.objects["arm"].angles[0] == pytest.approx(0.3)
    assert readings.objects["box"].object_sensors[0].value[:2] == pytest.approx((0.1, 0.2))


def test_a_reset_with_a_state_of_the_wrong_size_is_refused_and_the_state_kept():
    sim = SimulationServer(load_scene("arm", None))
    sim.handle(control(*ARM_HOME))
    before = sim.handle(SensorRequestMessage())
    answer = sim.handle(ResetMessage(qpos=[0.0, 1.0]))
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.CONTROL_MISMATCH
    assert answer.text == "Reset qpos has 2 numbers; the model has 16"
    assert sim.handle(SensorRequestMessage()) == before


def test_a_reset_with_a_state_is_refused_by_a_scene_without_one():
    answer = SimulationServer(StaticScene()).handle(ResetMessage(qvel=[0.0]))
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.UNEXPECTED_MESSAGE
    assert "cannot start a reset from a given qpos/qvel" in answer.text


def test_a_control_to_a_scene_without_control_arrays_is_refused_as_unexpected():
    class ReadOnly:
        def handshake(self) -> HandshakeMessage:
            return HandshakeMessage()

    answer = SimulationServer(ReadOnly()).handle(ControlMessage(), b"c")
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.UNEXPECTED_MESSAGE
    assert "takes no Controls" in answer.text


def test_a_reset_refused_for_its_state_leaves_no_session_behind():
    sim = SimulationServer(StaticScene())
    sim.handle(ResetMessage(qpos=[0.0]))
    assert not sim.session_active
