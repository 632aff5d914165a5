"""Controls the hot path's plain reader and quick checks leave aside, applied and stepped by the C++ hot path all the
same (`coupler.serve.hot_path`): a Control of another encoding (Click's deprecated single-type value lists) is
read by the full decoder there; a value beyond the smallest any control may hold is checked against its own
control's limit by the scene's C++ scatter there. The answers are those of stepping the same MJCF in MuJoCo directly."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import pytest

mujoco = pytest.importorskip("mujoco")

from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.transport.client import Client  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ControlField,
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ObjectControl,
    SensorMessage,
)
from geared_pendulums import GEAR, PENDULUMS as SCENE  # noqa: E402
from served_loop import Served  # noqa: E402


def _control(torques: dict[str, float], field: ControlField = ControlField.VALUES, steps: int = 0) -> ControlMessage:
    objects = {name: ObjectControl(values=[torque], field=field) for name, torque in torques.items()}
    return ControlMessage(objects=objects, steps=steps)


def _assert_stepped_as_in_mujoco(plan: list[tuple[dict[str, float], int, tuple]]) -> None:
    """Each answer of `plan` (torques sent, steps, the answers to them), in order, reads as the scene stepped so in
    MuJoCo directly."""
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    for torques, steps, answers in plan:
        for name, torque in torques.items():
            data.ctrl[model.actuator(name).id] = torque / GEAR[name]
        mujoco.mj_step(model, data, nstep=steps)
        for answer in answers:
            assert isinstance(answer, SensorMessage) and answer.simulated_time == data.time
            for name in GEAR:
                assert answer.objects[name].angles == [data.qpos[model.joint(name).qposadr[0]]]


# Each Control sent, in order, and the name of the case it shows.
CONTROLS = [
    ("plain", _control({"light": 0.2, "heavy": 300.0})),
    ("deprecated torques", _control({"light": -0.4, "heavy": 900.0}, ControlField.TORQUES, steps=3)),
    # 5e10 N m is beyond what the light motor's ctrl may hold (MuJoCo's mjMAXVAL, 1e10), not the heavy one's: its
    # ctrl is 5e7, clamped to 2.
    ("large value", _control({"light": 0.1, "heavy": 5e10}, steps=2)),
]
# Refused with nothing applied: MuJoCo would zero every control of the step.
BEYOND = _control({"light": 5e10})


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    """The answers to CONTROLS by case (and BEYOND's), the Controls the hot path served and those the server served."""
    address = f"ipc://{tmp_path_factory.mktemp('handed_back')}/hot.sock"
    with Served(MujocoSimulation.from_xml_string(SCENE), address) as hot:
        with Client(hot.responder.endpoint, timeout=10.0) as client:
            client.request(HandshakeInitMessage())
            answers = {case: client.request(control) for case, control in CONTROLS}
            answers["beyond"] = client.request(BEYOND)
    # Counted once the loop has stopped: the hot path reports its counts when it returns to Python.
    assert hot.loop.hot_path is not None
    return answers, hot.loop.hot_path.controls, hot.sim.stats.controls


def test_every_control_is_served_by_the_hot_path_however_it_is_encoded(served):
    answers, in_cpp, controls = served
    assert all(isinstance(answers[case], SensorMessage) for case, _ in CONTROLS)
    assert in_cpp == controls == len(CONTROLS)


def test_a_value_beyond_what_mujoco_accepts_for_its_control_is_refused_naming_it(served):
    refused = served[0]["beyond"]
    assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.CONTROL_MISMATCH
    assert "control 'light' of object 'light' is 5e+10" in refused.text


def test_every_answer_is_that_of_stepping_the_scene_in_mujoco(served):
    model = mujoco.MjModel.from_xml_string(SCENE)
    data = mujoco.MjData(model)
    for case, control in CONTROLS:
        for name, sent in control.objects.items():
            data.ctrl[model.actuator(name).id] = sent.values[0] / GEAR[name]
        mujoco.mj_step(model, data, nstep=max(control.steps, 1))
        answer = served[0][case]
        assert answer.simulated_time == data.time, case
        for name in GEAR:
            joint = model.joint(name)
            assert answer.objects[name].angles == [data.qpos[joint.qposadr[0]]], case
            assert answer.objects[name].angular_velocities == [data.qvel[joint.dofadr[0]]], case


@contextlib.contextmanager
def _after_a_round(tmp_path, light: float, heavy: float) -> Iterator[tuple[Served, Client, Client, tuple]]:
    """Two controllers served by a lockstep loop, the first driving "light" and the second "heavy", after their first
    round of these torques: the server, their clients, and the answers to that round (the second's, the first's)."""
    with Served(MujocoSimulation.from_xml_string(SCENE), f"ipc://{tmp_path}/rounds.sock", controllers=2) as served, \
            Client(served.responder.endpoint, timeout=10.0) as first, \
            Client(served.responder.endpoint, timeout=10.0) as second:
        first.request(HandshakeInitMessage())
        second.request(HandshakeInitMessage())
        first.send(_control({"light": light}))
        yield served, first, second, (second.request(_control({"heavy": heavy})), first.receive())


def test_a_round_whose_first_control_python_applied_is_stepped_by_the_hot_path(tmp_path):
    with _after_a_round(tmp_path, 0.2, 300.0) as (served, first, second, opening):
        # A Control the loop takes from the socket itself (gathered while it serves a request the hot path handed
        # back) is applied in Python and waits for its round, leaving the state to settle.
        served.stop.set()
        served.thread.join(timeout=10)
        first.send(_control({"light": -0.3}))
        request = served.responder.receive(5.0)
        assert request is not None and served.responder.respond(request).held
        served.sim.sessions.rounds.attach(request)
        assert not served.sim.simulation.settled
        in_cpp = served.loop.hot_path.controls
        served.stop.clear()
        served.thread = threading.Thread(target=served.loop.run, args=(served.stop, 0.05))
        served.thread.start()
        completing = second.request(_control({"heavy": 600.0})), first.receive()
    assert served.loop.hot_path.controls == in_cpp + 1  # the second's Control, which completed the round
    assert served.sim.stats.controls == 4 and served.sim.stats.steps == 2
    _assert_stepped_as_in_mujoco([({"light": 0.2, "heavy": 300.0}, 1, opening),
                                  ({"light": -0.3, "heavy": 600.0}, 1, completing)])


def test_a_round_completed_by_a_controller_leaving_is_stepped_by_the_hot_path(tmp_path):
    with _after_a_round(tmp_path, 0.5, 300.0) as (served, staying, leaving, together):
        staying.send(_control({"light": -0.5}))
        # Its goodbye goes to Python, which lets the waiting Control's round go on without it.
        leaving.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving"))
        alone = staying.receive()
    assert served.loop.hot_path is not None and served.loop.hot_path.rounds == 2
    assert served.sim.stats.steps == 2
    _assert_stepped_as_in_mujoco([({"light": 0.5, "heavy": 300.0}, 1, together), ({"light": -0.5}, 1, (alone,))])


def test_a_controllers_control_the_loop_took_from_the_socket_itself_is_served_by_the_hot_path(tmp_path):
    with Served(MujocoSimulation.from_xml_string(SCENE), f"ipc://{tmp_path}/lone.sock") as served, \
            Client(served.responder.endpoint, timeout=10.0) as client:
        client.request(HandshakeInitMessage())
        before = client.request(_control({"light": 0.1}))
        served.stop.set()
        served.thread.join(timeout=10)
        # Taken from the socket and queued by the loop, as it gathers what waits while it serves a request the hot
        # path handed back.
        client.send(_control({"light": -0.2, "heavy": 700.0}, steps=2))
        request = served.responder.receive(5.0)
        assert request is not None
        served.loop._requests.hand_back(request, after_controller=False)
        in_cpp = served.loop.hot_path.controls
        served.stop.clear()
        served.thread = threading.Thread(target=served.loop.run, args=(served.stop, 0.05))
        served.thread.start()
        gathered = client.receive()
    assert served.loop.hot_path.controls == in_cpp + 1
    assert served.sim.stats.controls == 2 and served.sim.stats.steps == 3
    _assert_stepped_as_in_mujoco([({"light": 0.1}, 1, (before,)), ({"light": -0.2, "heavy": 700.0}, 2, (gathered,))])


def test_a_round_the_hot_path_cannot_take_as_the_simulation_fails_to_settle_is_answered_with_the_failure(tmp_path):
    with _after_a_round(tmp_path, 0.5, 300.0) as (served, staying, leaving, together):
        simulation = served.sim.simulation
        settle = simulation.settle

        def failing() -> None:
            raise RuntimeError("the state cannot be forwarded")

        staying.send(_control({"light": -0.5}))
        simulation.settle = failing
        # The goodbye completes the round in Python, which the hot path cannot take from an unsettled state.
        leaving.send(ErrorMessage(code=ErrorCode.SESSION_ENDED, text="leaving"))
        failed = staying.receive()
        simulation.settle = settle
        after = staying.request(_control({"light": 0.1}))
    assert isinstance(failed, ErrorMessage) and failed.code == ErrorCode.INTERNAL_ERROR, failed
    assert "the state cannot be forwarded" in failed.text
    assert isinstance(after, SensorMessage)
    _assert_stepped_as_in_mujoco([({"light": 0.5, "heavy": 300.0}, 1, together)])
