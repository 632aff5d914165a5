"""A Control given to `SimulationServer.handle` is applied, stepped and read in C++
(`coupler.serve.native_control_step`), as the hot path serves one: the simulation's Python apply, step and read
are never called, a Control of many steps takes them all at once (under a loop, in chunks C++ takes one call
each), a free run's takes none, and the answers are those of stepping the same MJCF in MuJoCo directly, bit for
bit. Several controllers' Controls are applied in C++ too, and their round stepped there (`step_round`)."""

from __future__ import annotations

import logging
import threading

import pytest

mujoco = pytest.importorskip("mujoco")

from coupler import _native  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.serve.held import HELD  # noqa: E402
from coupler.serve.lockstep_loop import LockstepLoop  # noqa: E402
from coupler.serve.native_responder import NativeResponder  # noqa: E402
from coupler.serve.simulation_server import SimulationServer  # noqa: E402
from coupler.wire.codec import decode  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)


def _pendulums(*pendulums: tuple[str, str, float]) -> str:
    """The MJCF of hinged pendulums (name, position, arm length in m), each driven by a motor of its name: torques
    in N m at the joint."""
    bodies = "".join(f"""
    <body name="{name}" pos="{pos}">
      <joint name="{name}" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 {length} 0 0" size="0.02"/>
    </body>""" for name, pos, length in pendulums)
    motors = "".join(f"""
    <motor name="{name}" joint="{name}"/>""" for name, _, _ in pendulums)
    return f"<mujoco>\n  <worldbody>{bodies}\n  </worldbody>\n  <actuator>{motors}\n  </actuator>\n</mujoco>\n"


# A pendulum driven by a motor.
SCENE = _pendulums(("pendulum", "0 0 1", 0.3))
# Torques sent and the steps each Control asks for (0: one); the last more than a loop would take in one chunk.
PLAN = [(0.3, 0), (-0.5, 3), (0.2, _native.StepChunks.FIRST + 20)]


def _not_in_python(name: str):
    def called(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the simulation's Python {name} was called")

    return called


def _scene_served_in_cpp_only(xml: str = SCENE) -> MujocoSimulation:
    """The scene of `xml`, whose Python apply, step and read refuse to serve a Control."""
    simulation = MujocoSimulation.from_xml_string(xml)
    for name in ("apply_values", "step", "sensor_values"):
        setattr(simulation, name, _not_in_python(name))
    return simulation


@pytest.fixture(scope="module")
def served() -> tuple[list[object], SimulationServer]:
    """The answers to PLAN's Controls given to handle(), and the server."""
    sim = SimulationServer(_scene_served_in_cpp_only())
    sim.handle(HandshakeInitMessage())
    answers = [sim.handle(ControlMessage(objects={"pendulum": ObjectControl([torque])}, steps=steps))
               for torque, steps in PLAN]
    return answers, sim


def test_a_control_given_to_handle_is_stepped_in_cpp_as_stepping_the_scene_in_mujoco(served):
    answers, _ = served
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    for (torque, steps), answer in zip(PLAN, answers):
        data.ctrl[0] = torque
        mujoco.mj_step(model, data, nstep=max(steps, 1))
        assert isinstance(answer, SensorMessage), answer
        assert answer.simulated_time == data.time
        assert answer.objects["pendulum"].angles == [data.qpos[0]]
        assert answer.objects["pendulum"].angular_velocities == [data.qvel[0]]


def test_every_control_and_step_taken_in_cpp_is_counted(served):
    _, sim = served
    assert (sim.stats.controls, sim.stats.steps) == (len(PLAN), sum(max(steps, 1) for _, steps in PLAN))


def test_a_free_runs_control_given_to_handle_is_applied_and_read_in_cpp_without_a_step():
    sim = SimulationServer(_scene_served_in_cpp_only(), lockstep=False)
    answer = sim.handle(ControlMessage(objects={"pendulum": ObjectControl([0.3])}))
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    data.ctrl[0] = 0.3
    mujoco.mj_forward(model, data)
    assert isinstance(answer, SensorMessage), answer
    assert answer.simulated_time == data.time == 0.0
    assert answer.objects["pendulum"].angles == [data.qpos[0]]
    assert answer.objects["pendulum"].torques == [data.actuator_force[0]]
    assert (sim.stats.controls, sim.stats.steps) == (1, 0)


def test_values_clamped_in_cpp_through_handle_are_counted_and_warned_once(caplog):
    simulation = _scene_served_in_cpp_only(SCENE.replace('joint="pendulum"/>', 'joint="pendulum" ctrlrange="-1 1"/>'))
    sim = SimulationServer(simulation)
    with caplog.at_level(logging.WARNING, logger="coupler"):
        for _ in range(2):
            answer = sim.handle(ControlMessage(objects={"pendulum": ObjectControl([2.0])}))
            assert isinstance(answer, SensorMessage) and answer.objects["pendulum"].torques == [1.0]
    assert simulation.clamped_values == 2
    assert [r.getMessage() for r in caplog.records if "clamped" in r.getMessage()] == [
        "control 'pendulum' of 'pendulum' was sent outside its range [-1, 1] and is clamped"]


def test_a_control_of_many_steps_given_under_a_loop_is_applied_in_cpp_and_its_chunks_taken_there(tmp_path):
    simulation = MujocoSimulation.from_xml_string(SCENE)
    for name in ("apply_values", "step"):  # the answer is read once the last chunk is taken, as a round's
        setattr(simulation, name, _not_in_python(name))
    sim = SimulationServer(simulation)
    responder = NativeResponder(f"ipc://{tmp_path}/loop.sock", sim)
    try:
        loop = LockstepLoop(responder)
        sim.handle(HandshakeInitMessage())
        steps = _native.StepChunks.FIRST + 20
        assert sim.handle(ControlMessage(objects={"pendulum": ObjectControl([0.4])}, steps=steps)) is HELD
        long = sim.long_control
        assert long is not None and loop.hot_path.takes_chunks()  # its chunks are C++'s to take
        answer = loop._step_long_control(threading.Event())
    finally:
        responder.close()
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    data.ctrl[0] = 0.4
    mujoco.mj_step(model, data, nstep=steps)
    message = decode(answer.reply)
    assert isinstance(message, SensorMessage), message
    assert message.simulated_time == data.time
    assert message.objects["pendulum"].angles == [data.qpos[0]]
    assert (long.taken, sim.stats.steps) == (steps, steps)


# Two pendulums, one for each of two controllers.
TWO = _pendulums(("left", "0 0 1", 0.3), ("right", "1 0 1", 0.2))
# Each round: the torques of the two controllers and the steps their Controls ask for (0: one).
ROUNDS = [(0.3, -0.2, 0), (-0.5, 0.4, 3), (0.2, 0.1, _native.StepChunks.FIRST + 20)]


def _two_controllers(simulation: MujocoSimulation) -> SimulationServer:
    sim = SimulationServer(simulation, controllers=2)
    for peer in (b"left", b"right"):
        sim.handle(HandshakeInitMessage(), peer)
    return sim


def _hold_round(sim: SimulationServer, left: float, right: float, steps: int) -> None:
    for peer, torque in ((b"left", left), (b"right", right)):
        held = sim.handle(ControlMessage(objects={peer.decode(): ObjectControl([torque])}, steps=steps), peer)
        assert held is HELD, held


def _stepped_directly(left: float, right: float, steps: int, data: mujoco.MjData, model: mujoco.MjModel) -> None:
    data.ctrl[:] = [left, right]
    mujoco.mj_step(model, data, nstep=max(steps, 1))


def _assert_state(answer: object, data: mujoco.MjData) -> None:
    assert isinstance(answer, SensorMessage), answer
    assert answer.simulated_time == data.time
    for k, name in enumerate(("left", "right")):
        assert answer.objects[name].angles == [data.qpos[k]]
        assert answer.objects[name].angular_velocities == [data.qvel[k]]


def test_two_controllers_controls_and_their_round_given_to_handle_are_applied_and_stepped_in_cpp():
    simulation = MujocoSimulation.from_xml_string(TWO)
    for name in ("apply_values", "step"):  # the round's state is read as any read is
        setattr(simulation, name, _not_in_python(name))
    sim = _two_controllers(simulation)
    model = mujoco.MjModel.from_xml_string(TWO)
    data = mujoco.MjData(model)
    for left, right, steps in ROUNDS:
        _hold_round(sim, left, right, steps)
        waiting = sim.handle(SensorRequestMessage())  # reads before the step see the controls applied
        assert isinstance(waiting, SensorMessage) and waiting.simulated_time == data.time
        assert (waiting.objects["left"].torques, waiting.objects["right"].torques) == ([left], [right])
        peers, taken, _ = sim.step_round()
        assert (sorted(peers), taken) == ([b"left", b"right"], max(steps, 1))
        _stepped_directly(left, right, steps, data, model)
        _assert_state(sim.handle(SensorRequestMessage()), data)
    assert (sim.stats.controls, sim.stats.steps, sim.stats.steps_without_control) == (
        2 * len(ROUNDS), sum(max(steps, 1) for *_, steps in ROUNDS), 0)


class _PlainResponder(NativeResponder):
    """A responder no hot path is made for (only the native responder itself, and the batched one, get one)."""


def _long_round(address: str, steps: int, stop_after: float | None = None):
    """Two controllers' round of `steps` steps under a lockstep loop on `address` (cut at `stop_after`), the scene's
    Python apply and step refusing: the loop, the server, the long Control the round left to the loop, and the loop's
    answer to it once taken."""
    simulation = MujocoSimulation.from_xml_string(TWO)
    for name in ("apply_values", "step"):
        setattr(simulation, name, _not_in_python(name))
    sim = _two_controllers(simulation)
    responder = NativeResponder(address, sim)
    try:
        loop = LockstepLoop(responder, stop_after=stop_after)
        _hold_round(sim, 0.4, -0.3, steps)
        sim.step_round()
        long = sim.long_control
        assert long is not None and loop.hot_path.takes_chunks()  # its chunks are C++'s to take
        answer = loop._step_long_control(threading.Event())
    finally:
        responder.close()
    return loop, sim, long, answer


def _stepped_round(steps: int) -> mujoco.MjData:
    """The two pendulums after `steps` steps of the round's torques, stepped by MuJoCo directly."""
    model = mujoco.MjModel.from_xml_string(TWO)
    data = mujoco.MjData(model)
    _stepped_directly(0.4, -0.3, steps, data, model)
    return data


def test_a_round_of_many_steps_under_a_loop_is_taken_in_chunks_in_cpp(tmp_path):
    steps = _native.StepChunks.FIRST + 20
    _, sim, long, answer = _long_round(f"ipc://{tmp_path}/rounds.sock", steps)
    _assert_state(decode(answer.reply), _stepped_round(steps))
    assert (long.taken, sim.stats.steps, sim.stats.steps_without_control) == (steps, steps, 0)


def test_a_round_of_many_steps_under_a_loop_stops_in_cpp_at_stop_after(tmp_path):
    # 1,000 steps cut at 0.5 s: 250 steps of 2 ms.
    _, sim, _, answer = _long_round(f"ipc://{tmp_path}/cut.sock", 1000, stop_after=0.5)
    data = _stepped_round(250)
    assert sim.simulation.data.time == data.time
    assert sim.simulation.data.qpos.tolist() == data.qpos.tolist()
    ended = decode(answer.reply)
    assert isinstance(ended, ErrorMessage) and ended.code == ErrorCode.SESSION_ENDED
    assert "after 250 of the 1000 steps" in ended.text and "--stop-after 0.5 s reached" in ended.text


def test_a_lockstep_loop_refuses_a_responder_it_cannot_serve_controls_in_cpp_for(tmp_path):
    sim = _two_controllers(MujocoSimulation.from_xml_string(TWO))
    with _PlainResponder(f"ipc://{tmp_path}/plain.sock", sim) as responder:
        with pytest.raises(ValueError, match="LockstepLoop serves Controls in C[+][+]: it needs the native"):
            LockstepLoop(responder)
