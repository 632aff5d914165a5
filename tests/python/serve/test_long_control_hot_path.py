"""A lone controller's Control of many steps is taken by the C++ hot path, in chunks: answered once, with the state
MuJoCo reaches after every step, readers answered meanwhile and a stop answered as on the Python path."""

from __future__ import annotations

import time

import pytest

mujoco = pytest.importorskip("mujoco")

from coupler.limits import MAX_STEPS_PER_CONTROL  # noqa: E402
from coupler.mujoco.simulation import MujocoSimulation  # noqa: E402
from coupler.scenes import load_scene  # noqa: E402
from coupler.serve.long_control import LONG_CONTROL_STEPS  # noqa: E402
from coupler.serve.run_clock import RunClock  # noqa: E402
from coupler.transport.client import Client  # noqa: E402
from coupler.wire.messages import (  # noqa: E402
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ObjectControl,
    SensorMessage,
    SensorRequestMessage,
)
from served_loop import Served  # noqa: E402
from failing_stepper import failing_parts  # noqa: E402

# A damped pendulum driven by a motor: a Control's torque moves it, so a step left out or taken twice shows.
PENDULUM = """
<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="pendulum">
      <joint name="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.02"/>
    </body>
  </worldbody>
  <actuator>
    <motor name="twist" joint="hinge"/>
  </actuator>
</mujoco>
"""
TORQUE = 0.3
LONGEST = MAX_STEPS_PER_CONTROL  # the cap on steps: on the arm, seconds of stepping


def pendulum_control(steps: int) -> ControlMessage:
    return ControlMessage(objects={"pendulum": ObjectControl([TORQUE])}, steps=steps)


def arm_control(steps: int) -> ControlMessage:
    return ControlMessage(objects={"arm": ObjectControl([0.1] * 7)}, steps=steps)


def start(client: Client, control: ControlMessage) -> None:
    """The handshake and a first Control of one step: the simulation runs, the controller drives from C++."""
    client.request(HandshakeInitMessage())
    assert isinstance(client.request(control), SensorMessage)


def stepped_long(served: Served, client: Client, control: ControlMessage) -> None:
    """Send `control` and return once the hot path has taken a chunk of it (a read sees time pass)."""
    client.send(control)
    with Client(served.address, timeout=5.0) as reader:
        deadline = time.monotonic() + 5.0
        while reader.request(SensorRequestMessage()).simulated_time < 0.003:
            assert time.monotonic() < deadline, "the long Control took no step"


def test_a_long_control_on_the_hot_path_is_answered_once_with_the_state_mujoco_reaches_after_every_step(tmp_path):
    steps = 7 * LONG_CONTROL_STEPS + 3
    model = mujoco.MjModel.from_xml_string(PENDULUM)
    data = mujoco.MjData(model)
    data.ctrl[:] = TORQUE
    for _ in range(1 + steps):
        mujoco.mj_step(model, data)
    with Served(MujocoSimulation.from_xml_string(PENDULUM), f"ipc://{tmp_path / 's.sock'}") as served, \
            Client(served.address, timeout=10.0) as driver:
        start(driver, pendulum_control(1))
        answer = driver.request(pendulum_control(steps))
    assert isinstance(answer, SensorMessage), answer
    pendulum = answer.objects["pendulum"]
    assert (pendulum.angles, pendulum.angular_velocities, answer.simulated_time) == ([data.qpos[0]], [data.qvel[0]], data.time)


def test_the_hot_path_counts_a_long_control_it_served_and_its_steps(tmp_path):
    steps = 3 * LONG_CONTROL_STEPS
    with Served(MujocoSimulation.from_xml_string(PENDULUM), f"ipc://{tmp_path / 's.sock'}") as served, \
            Client(served.address, timeout=10.0) as driver:
        start(driver, pendulum_control(1))
        assert isinstance(driver.request(pendulum_control(steps)), SensorMessage)
    hot = served.loop.hot_path
    assert hot is not None and hot.controls == 2  # the first Control too
    assert (served.sim.stats.controls, served.sim.stats.steps, served.sim.stats.errors_sent) == (2, 1 + steps, 0)


def test_a_reader_during_a_long_control_on_the_hot_path_is_answered_before_it_ends(tmp_path):
    with Served(load_scene("arm"), f"ipc://{tmp_path / 's.sock'}") as served, \
            Client(served.address, timeout=30.0) as driver, \
            Client(served.address, timeout=0.5) as reader:
        start(driver, arm_control(1))
        driver.send(arm_control(LONGEST))
        read = reader.request(SensorRequestMessage())  # a TimeoutError after 0.5 s fails the test
        assert driver.wait(0) is False, "the long Control ended before the read was answered"
        assert read.simulated_time < LONGEST * 0.002


def test_a_stop_during_a_long_control_on_the_hot_path_answers_it_with_the_steps_taken(tmp_path):
    with Served(load_scene("arm"), f"ipc://{tmp_path / 's.sock'}") as served, Client(served.address, timeout=10.0) as driver:
        start(driver, arm_control(1))
        stepped_long(served, driver, arm_control(LONGEST))
        served.stop.set()
        answer = driver.receive(timeout=2.0)
    taken = served.sim.stats.steps - 1
    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SESSION_ENDED, answer
    assert answer.text == f"server stopped after {taken} of the {LONGEST} steps this Control asked for"
    assert 0 < taken < LONGEST and served.loop.hot_path.controls == 2  # the first Control, then the long one


def test_a_round_of_many_steps_on_the_hot_path_answers_every_controller_with_the_state_after_all_its_steps(tmp_path):
    steps = 3 * LONG_CONTROL_STEPS
    sides = {"left_arm": None, "right_arm": None}
    with Served(load_scene("two_arms"), f"ipc://{tmp_path / 's.sock'}", controllers=2) as served, \
            Client(served.address, timeout=10.0) as left, Client(served.address, timeout=10.0) as right:
        clients = dict(zip(sides, (left, right)))
        for client in clients.values():
            client.request(HandshakeInitMessage())
        for count in (1, 1, steps):  # two rounds of a step (the first starts the simulation), then a long one
            for name, client in clients.items():
                client.send(ControlMessage(objects={name: ObjectControl([0.0] * 7)}, steps=count))
            for name, client in clients.items():
                sides[name] = client.receive()
    times = {name: answer.simulated_time for name, answer in sides.items()}
    assert times == {name: pytest.approx((2 + steps) * 0.002) for name in sides}
    assert sides["left_arm"] == sides["right_arm"]
    assert served.loop.hot_path.controls >= 4 and served.sim.stats.steps == 2 + steps


def send_long_round(clients: dict[str, Client]) -> None:
    """Handshakes, two rounds of one step each (the first starts the run, through Python), then a round of LONGEST steps for
    every controller (by the arm it drives), sent and not waited for."""
    for client in clients.values():
        client.request(HandshakeInitMessage())
    for count in (1, 1, LONGEST):
        for name, client in clients.items():
            client.send(ControlMessage(objects={name: ObjectControl([0.0] * 7)}, steps=count))
        if count == 1:
            for client in clients.values():
                client.receive()


def test_a_round_of_many_steps_whose_controllers_all_left_keeps_the_server_serving(tmp_path):
    with Served(load_scene("two_arms"), f"ipc://{tmp_path / 's.sock'}", controllers=2) as served, \
            Client(served.address, timeout=0.5) as reader:
        with Client(served.address, timeout=10.0) as left, Client(served.address, timeout=10.0) as right:
            clients = {"left_arm": left, "right_arm": right}
            send_long_round(clients)
            time.sleep(0.1)
        time.sleep(0.3)  # both gone while their round is stepped
        assert isinstance(reader.request(SensorRequestMessage()), SensorMessage)
        assert served.thread.is_alive()


def test_a_newcomer_during_a_long_control_on_the_hot_path_is_told_busy_within_half_a_second(tmp_path):
    with Served(load_scene("arm"), f"ipc://{tmp_path / 's.sock'}", controllers=2) as served, \
            Client(served.address, timeout=10.0) as driver, Client(served.address, timeout=0.5) as newcomer:
        # Two controllers' places, one taken: only the long Control keeps the newcomer out.
        start(driver, arm_control(1))
        stepped_long(served, driver, arm_control(LONGEST))
        for request in (HandshakeInitMessage(), arm_control(1)):
            answer = newcomer.request(request)  # a TimeoutError after 0.5 s fails the test
            assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SERVER_BUSY, answer
            assert "being stepped" in answer.text
        assert driver.wait(0) is False


def test_a_stop_during_a_round_of_many_steps_on_the_hot_path_answers_every_controller_with_the_steps_taken(tmp_path):
    with Served(load_scene("two_arms"), f"ipc://{tmp_path / 's.sock'}", controllers=2) as served, \
            Client(served.address, timeout=10.0) as left, Client(served.address, timeout=10.0) as right:
        clients = {"left_arm": left, "right_arm": right}
        send_long_round(clients)
        time.sleep(0.1)
        served.stop.set()
        answers = [client.receive(timeout=2.0) for client in clients.values()]
    taken = served.sim.stats.steps - 2
    assert 0 < taken < LONGEST
    assert served.sim.stats.errors_sent == 1  # one answer, sent to each controller, as on the Python path
    for answer in answers:
        assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.SESSION_ENDED, answer
        assert answer.text == f"server stopped after {taken} of the {LONGEST} steps this Control asked for"


def test_paced_a_long_control_on_the_hot_path_is_answered_when_due_and_a_reader_meanwhile(make_address):
    steps = LONG_CONTROL_STEPS + 50  # 0.15 s of 1 ms steps: its answer waits longer than one is held unserved
    with Served(load_scene("static", 0.001), make_address("ipc"), clock=RunClock(1.0)) as served, \
            Client(served.address, timeout=5.0) as driver, Client(served.address, timeout=1.0) as reader:
        driver.request(HandshakeInitMessage())
        first = driver.request(ControlMessage(objects={"arm": ObjectControl([0.1] * 7)}))  # starts the run
        sent = time.monotonic()
        driver.send(ControlMessage(objects={"arm": ObjectControl([0.1] * 7)}, steps=steps))
        due = first.simulated_time + steps * 0.001
        read = reader.request(SensorRequestMessage())
        while read.simulated_time < due - 1e-9:  # until its last chunk is taken
            read = reader.request(SensorRequestMessage())
        held = driver.wait(0) is False
        answer = driver.receive()
        waited = time.monotonic() - sent
    assert held
    assert read.simulated_time == answer.simulated_time == pytest.approx(due)
    assert waited >= steps * 0.001 - 0.003  # the run's clock, not the stepping, says when it is answered
    assert served.loop.hot_path.controls == 2 and served.loop.hot_path.reads >= 1


def test_a_long_control_whose_stepping_fails_partway_is_answered_with_the_failure_and_counted_once(tmp_path):
    simulation = MujocoSimulation.from_xml_string(PENDULUM)
    parts = simulation.hot_path_parts()
    simulation.hot_path_parts = lambda: failing_parts(parts, "the physics diverged", after=3)  # a few chunks in
    with Served(simulation, f"ipc://{tmp_path}/diverging.sock") as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        start(client, pendulum_control(1))
        failed = client.request(pendulum_control(LONGEST))
        read = client.request(SensorRequestMessage())
    stats = hot.sim.stats  # counted once each run of the hot path returns: the loop has stopped
    assert isinstance(failed, ErrorMessage) and failed.code == ErrorCode.INTERNAL_ERROR
    assert failed.text.startswith("internal error: RuntimeError: the physics diverged")
    assert isinstance(read, SensorMessage) and 0 < read.simulated_time < (LONGEST + 1) * 0.002  # the chunks taken
    assert stats.errors_sent == 1
    assert (stats.requests, stats.controls, stats.sensor_requests) == (4, 2, 1)  # the failed Control counted once
