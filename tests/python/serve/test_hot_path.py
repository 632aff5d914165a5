"""The lone controller's round trip in C++ (`coupler.serve.hot_path`): answers as MuJoCo steps the scene,
counts, sessions, and a server that still stops."""

from __future__ import annotations

import contextlib
import logging
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator

import mujoco
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coupler.mujoco.simulation import MujocoSimulation
from coupler.serve.long_control import LONG_CONTROL_STEPS
from coupler.serve.run_clock import RunClock
from coupler.scenes import load_scene
from coupler.transport.client import Client
from coupler.wire.codec import decode, encode
from coupler.wire.messages import (
    ControlMessage,
    ErrorCode,
    ErrorMessage,
    HandshakeInitMessage,
    ObjectControl,
    ResetMessage,
    SensorMessage,
    SensorRequestMessage,
)
from geared_pendulums import GEAR, PENDULUMS
from mocap_scenes import MOCAP_ARM
from served_loop import Served, ask, req_socket
from peers import coupler_server

import pytest

# The largest ctrl MuJoCo takes (mjMAXVAL): a Control asking for more is refused, as one not finite.
LARGEST_CTRL = 1e10

# A torque in range, beyond the heavy motor's range, or now and then one MuJoCo does not take.
torques = st.one_of(st.floats(-3000.0, 3000.0), st.floats(-3000.0, 3000.0), st.floats(-3000.0, 3000.0),
                    st.sampled_from([1e11, 5e13, -1e300, math.nan, math.inf]))
# Controls of some of the pendulums, with any steps (over the hot path's limit for a Control of one go too).
pendulum_controls = st.builds(
    ControlMessage,
    st.dictionaries(st.sampled_from(sorted(GEAR)), st.builds(lambda torque: ObjectControl([torque]), torques),
                    min_size=1),
    st.sampled_from([0, 0, 1, 2, 5, LONG_CONTROL_STEPS, LONG_CONTROL_STEPS + 1]))

# Encodings of a Control other than the plain one, which the full decoder reads: an unknown field, the
# message type again, a later steps field, every field again (map entries repeated: the last one counts).
EXTRAS: list[Callable[[bytes], bytes]] = [
    lambda frame: frame,
    lambda frame: frame + b"\x18\x05",
    lambda frame: frame + b"\x08\x02",
    lambda frame: frame + b"\xa0\x06\x03",
    lambda frame: frame + frame[2:],
]


def test_random_controls_are_answered_by_the_hot_path_as_mujoco_steps_the_scene_and_bad_ones_refused(make_address):
    model = mujoco.MjModel.from_xml_string(PENDULUMS)
    data = mujoco.MjData(model)
    sent = {"stepped": 0, "refused": 0, "clamped": 0}
    with Served(MujocoSimulation.from_xml_string(PENDULUMS), make_address("ipc")) as hot, \
            req_socket(hot.responder.endpoint) as client:
        ask(client, encode(HandshakeInitMessage()))

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(st.lists(st.tuples(pendulum_controls, st.sampled_from(EXTRAS)), min_size=1, max_size=8))
        def stepped_as_in_mujoco(controls: list[tuple[ControlMessage, Callable[[bytes], bytes]]]) -> None:
            for control, extra in controls:
                read = decode(extra(encode(control)))  # the Control the frame says, as any decoder reads it
                answer = decode(ask(client, extra(encode(control))))
                ctrls = {name: sent_.values[0] / GEAR[name] for name, sent_ in read.objects.items()}
                if not all(abs(ctrl) <= LARGEST_CTRL for ctrl in ctrls.values()):
                    assert isinstance(answer, ErrorMessage) and answer.code == ErrorCode.CONTROL_MISMATCH, read
                    sent["refused"] += 1
                    continue
                sent["stepped"] += 1
                sent["clamped"] += sum(1 for name, ctrl in ctrls.items() if name == "heavy" and abs(ctrl) > 2.0)
                for name, ctrl in ctrls.items():
                    data.ctrl[model.actuator(name).id] = ctrl
                mujoco.mj_step(model, data, nstep=max(read.steps, 1))
                assert isinstance(answer, SensorMessage) and answer.simulated_time == data.time, read
                for name in GEAR:
                    joint = model.joint(name)
                    assert answer.objects[name].angles == [data.qpos[joint.qposadr[0]]], read
                    assert answer.objects[name].angular_velocities == [data.qvel[joint.dofadr[0]]], read

        stepped_as_in_mujoco()
    # Counted once the loop has stopped: the hot path reports its counts when it returns to Python.
    assert hot.loop.hot_path is not None and hot.loop.hot_path.controls > sent["stepped"] // 2
    assert (hot.sim.stats.controls, hot.sim.stats.errors_sent) == (sent["stepped"], sent["refused"])
    assert hot.sim.simulation.clamped_values == sent["clamped"] > 0


def _mocap_control(pose: list[float], wrist: float) -> ControlMessage:
    return ControlMessage(objects={"target": ObjectControl(pose), "arm": ObjectControl([wrist])})


def test_values_clamped_on_the_hot_path_are_counted_and_warned_once_per_control(make_address, caplog):
    caplog.set_level(logging.WARNING, logger="coupler.mujoco")
    with Served(load_scene("arm", None), make_address("ipc")) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        handshake = client.request(HandshakeInitMessage())
        arm, described = next((name, d) for name, d in handshake.objects.items() if d.controls)
        width = len(described.controls)
        for _ in range(5):
            assert isinstance(client.request(ControlMessage(objects={arm: ObjectControl([50.0] * width)})),
                              SensorMessage)
    ranged = sum(1 for r in described.control_ranges if r.limited)
    assert ranged > 0
    assert hot.loop.hot_path.controls >= 4
    assert hot.sim.simulation.clamped_values == 5 * ranged
    warnings = [r for r in caplog.records if "is clamped" in r.getMessage()]
    assert len(warnings) == ranged


ARM = ControlMessage(objects={"arm": ObjectControl([0.1] * 7)})


def test_frame_sizes_traced_with_trace_sizes_come_from_the_hot_path_which_keeps_serving(make_address, caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    with Served(load_scene("static", None), make_address("ipc"), trace_sizes=True) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        answers = [client.request(ARM) for _ in range(20)]
    assert hot.loop.hot_path is not None and hot.loop.hot_path.controls >= 19
    traced = [r.getMessage() for r in caplog.records if r.getMessage().startswith("received")]
    assert traced[-1] == f"received {len(encode(ARM))} bytes, sent {len(encode(answers[-1]))} bytes"


def test_with_trace_the_hot_path_serves_the_controls_and_every_request_and_answer_is_logged(make_address, caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    with Served(load_scene("static", None), make_address("ipc"), trace=True) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        answers = [client.request(ARM) for _ in range(10)]
        read = client.request(SensorRequestMessage())
    assert hot.loop.hot_path is not None and hot.loop.hot_path.controls >= 9
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith(("received", "answered"))]
    assert logged[-22:-2] == [line for answer in answers for line in (f"received {ARM!r}", f"answered {answer!r}")]
    assert logged[-2:] == [f"received {SensorRequestMessage()!r}", f"answered {read!r}"]


def test_paced_and_traced_an_answer_held_in_cpp_is_logged_before_the_reads_served_while_it_waits(make_address,
                                                                                                caplog):
    caplog.set_level(logging.INFO, logger="coupler.serve.native_responder")
    with Served(load_scene("static", 0.1), make_address("ipc"), trace=True, clock=RunClock(1.0)) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as driver, \
            Client(hot.responder.endpoint, timeout=5.0) as reader:
        driver.request(HandshakeInitMessage())
        driver.send(ARM)  # its answer waits 0.1 s, the step's time
        time.sleep(0.01)
        read = reader.request(SensorRequestMessage())
        answer = driver.receive()
    assert hot.loop.hot_path.controls == 1
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith(("received", "answered"))]
    assert logged[-4:] == [f"received {ARM!r}", f"answered {answer!r}",
                           f"received {SensorRequestMessage()!r}", f"answered {read!r}"]


def test_paced_the_hot_path_serves_the_controls_and_never_runs_ahead_of_the_wall_clock(make_address):
    ten_steps = ControlMessage(objects=ARM.objects, steps=10)
    clock = RunClock(1.0)
    with Served(load_scene("static", None), make_address("ipc"), clock=clock) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        # Timed from before the first Control, which starts the run's clock: a late first answer cannot then
        # shorten the wait measured for the others.
        started = time.monotonic()
        first = client.request(ten_steps)  # starts the run and its clock, in C++ too
        answers = [client.request(ten_steps) for _ in range(20)]
        elapsed = time.monotonic() - started
    assert hot.loop.hot_path is not None and hot.loop.hot_path.controls == 21
    assert answers[-1].simulated_time - first.simulated_time == pytest.approx(0.2)
    assert elapsed >= 0.2 - 0.002  # the last answer waited for its time


def test_the_first_control_after_a_handshake_is_answered_in_cpp_and_starts_the_run(make_address):
    with Served(load_scene("static", None), make_address("ipc")) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        answer = client.request(ARM)
    assert isinstance(answer, SensorMessage)
    assert hot.loop.hot_path.controls == 1
    assert hot.sim.starts == 1


def test_the_first_control_after_a_reset_is_answered_in_cpp_and_starts_the_run_again(make_address):
    with Served(load_scene("static", None), make_address("ipc")) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        first = client.request(ARM)
        client.request(ResetMessage())
        again = client.request(ARM)
    assert isinstance(again, SensorMessage) and again.simulated_time == first.simulated_time
    assert hot.loop.hot_path.controls == 2
    assert hot.sim.starts == 2


def test_paced_a_reader_is_answered_in_cpp_while_the_controllers_long_held_answer_waits(make_address):
    with Served(load_scene("static", 0.3), make_address("ipc"), clock=RunClock(1.0)) as served, \
            Client(served.responder.endpoint, timeout=5.0) as driver, \
            Client(served.responder.endpoint, timeout=1.0) as reader:
        driver.request(HandshakeInitMessage())
        driver.send(ARM)  # one step of 0.3 s: its answer is held 0.3 s
        read = reader.request(SensorRequestMessage())
        while read.simulated_time == 0.0:  # until the server has taken the Control
            read = reader.request(SensorRequestMessage())
        held = driver.wait(0) is False
        answer = driver.receive()
    assert held
    assert read.simulated_time == answer.simulated_time == pytest.approx(0.3)
    assert served.loop.hot_path.controls == 1 and served.loop.hot_path.reads >= 1


def test_reads_of_the_controller_and_of_others_are_answered_in_cpp_with_the_last_controls_answer(make_address):
    with Served(load_scene("arm", None), make_address("ipc")) as hot, \
            req_socket(hot.responder.endpoint) as controller, req_socket(hot.responder.endpoint) as reader:
        read = encode(SensorRequestMessage())
        ask(controller, encode(HandshakeInitMessage()))
        for k in range(10):
            control = ControlMessage(objects={"arm": ObjectControl([0.05 * k] * 7)}, steps=k % 3)
            answer = ask(controller, encode(control))
            assert ask(reader, read) == answer
            assert ask(controller, read) == answer
    assert hot.loop.hot_path is not None and hot.loop.hot_path.reads > 0
    assert (hot.sim.stats.controls, hot.sim.stats.sensor_requests) == (10, 20)


def test_reads_answered_on_the_hot_path_renew_no_lease(make_address):
    lease = 0.2
    with Served(load_scene("static", None), make_address("ipc"), session_timeout=lease) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as driver, \
            Client(hot.responder.endpoint, timeout=5.0) as newcomer:
        driver.request(HandshakeInitMessage())
        for _ in range(3):
            driver.request(ARM)
        started = time.monotonic()
        while time.monotonic() - started < 2 * lease:
            assert isinstance(driver.request(SensorRequestMessage()), SensorMessage)
        taken = newcomer.request(ARM)
    assert hot.loop.hot_path.reads > 0
    assert isinstance(taken, SensorMessage)


@contextlib.contextmanager
def driver_and_newcomer(address: str, lease: float) -> Iterator[tuple[Served, Client, Client]]:
    """The static scene served through the hot path with this lease, and two controllers; the first has handshaken."""
    with Served(load_scene("static", None), address, session_timeout=lease) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as driver, \
            Client(hot.responder.endpoint, timeout=5.0) as newcomer:
        driver.request(HandshakeInitMessage())
        yield hot, driver, newcomer


def test_a_newcomer_is_refused_busy_while_the_controller_drives_through_the_hot_path(make_address):
    lease = 0.3
    with driver_and_newcomer(make_address("ipc"), lease) as (hot, driver, newcomer):
        # Driving for longer than the lease: only the Controls answered in C++ keep renewing it.
        started = time.monotonic()
        while time.monotonic() - started < 2 * lease:
            assert isinstance(driver.request(ARM), SensorMessage)
        refused = newcomer.request(ARM)
    assert hot.loop.hot_path.controls > 0
    assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.SERVER_BUSY


def test_a_newcomer_takes_over_from_a_hot_path_controller_whose_lease_lapsed(make_address):
    lease = 0.2
    with driver_and_newcomer(make_address("ipc"), lease) as (hot, driver, newcomer):
        for _ in range(3):
            driver.request(ARM)
        time.sleep(2 * lease)
        taken = newcomer.request(ARM)
        refused = driver.request(ARM)
    assert hot.loop.hot_path.controls > 0
    assert isinstance(taken, SensorMessage)
    assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.SERVER_BUSY


def test_a_newcomer_takes_over_at_once_from_a_hot_path_controller_that_disconnected(make_address):
    with Served(load_scene("static", None), make_address("ipc"), session_timeout=60.0) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as newcomer:
        arm = ControlMessage(objects={"arm": ObjectControl([0.1] * 7)})
        with Client(hot.responder.endpoint, timeout=5.0) as driver:
            driver.request(HandshakeInitMessage())
            for _ in range(3):
                driver.request(arm)
        deadline = time.monotonic() + 5.0
        answer = newcomer.request(arm)
        while isinstance(answer, ErrorMessage) and time.monotonic() < deadline:
            time.sleep(0.05)  # the close is reported by the transport a moment after it happens
            answer = newcomer.request(arm)
        left = hot.sim.stats.peers_left
    assert hot.loop.hot_path.controls > 0
    assert isinstance(answer, SensorMessage)
    assert left == 1


def _control_loop(address: str, answered: list[int], stop: threading.Event) -> None:
    """Step as fast as answers come, counting the Controls answered, until no answer comes within 2 s, or
    `stop`, set once the server has exited: an answer it sent before is here within moments, and no other
    can come, so the last Control's wait ends there rather than at the 2 s."""
    with req_socket(address) as socket:
        socket.rcvtimeo = 2000
        ask(socket, encode(HandshakeInitMessage()))
        frame = encode(ControlMessage(objects={"arm": ObjectControl([0.1] * 7)}))
        while not stop.is_set():
            socket.send(frame)
            waited = 0.0
            while not socket.poll(50):
                waited += 0.05
                if waited >= 2.0 or (stop.is_set() and not socket.poll(200)):
                    return
            socket.recv()
            answered[0] += 1


@pytest.mark.parametrize("scene", ["static", "arm"])
def test_sigterm_while_the_hot_path_serves_answers_the_control_in_hand_and_exits_within_a_second(scene, tmp_path):
    address = f"ipc://{tmp_path / 's.sock'}"
    answered = [0]
    stop = threading.Event()
    driver = threading.Thread(target=_control_loop, args=(address, answered, stop))
    with coupler_server(address, "--scene", scene) as server:
        try:
            driver.start()
            deadline = time.monotonic() + 10.0
            while answered[0] < 200 and time.monotonic() < deadline:
                time.sleep(0.02)
            signalled = time.monotonic()
            server.send_signal(signal.SIGTERM)
            code = server.wait(timeout=10)
            exited_after = time.monotonic() - signalled
        finally:
            stop.set()
            driver.join(timeout=10)
        out = server.output()
    assert code == 0, out
    assert exited_after < 1.0
    received = next(line for line in out.splitlines() if line.startswith("controls received:"))
    # Every Control the server took was answered: none was left in hand.
    assert int(received.split(":")[1]) == answered[0]


def test_a_mocap_scenes_controls_are_answered_by_the_hot_path_as_mj_step_after_setting_the_pose(make_address):
    model = mujoco.MjModel.from_xml_string(MOCAP_ARM)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(11)
    with Served(MujocoSimulation.from_xml_string(MOCAP_ARM), make_address("ipc")) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        for _ in range(30):
            position = (np.array([0.3, 0.0, 0.5]) + rng.uniform(-0.1, 0.1, 3)).tolist()
            quaternion = rng.uniform(-1.0, 1.0, 4).tolist()  # of any length: normalised
            wrist = float(rng.uniform(-1.0, 1.0))
            answer = client.request(_mocap_control(position + quaternion, wrist))
            data.mocap_pos[0] = position
            data.mocap_quat[0] = np.array(quaternion) / math.hypot(*quaternion)
            data.ctrl[0] = wrist
            mujoco.mj_step(model, data)
            assert isinstance(answer, SensorMessage)
            assert answer.simulated_time == data.time
            assert answer.objects["arm"].angles == data.qpos.tolist()
            assert answer.objects["arm"].angular_velocities == data.qvel.tolist()
    served = hot.sim.simulation.data
    np.testing.assert_array_equal(served.mocap_quat, data.mocap_quat)
    # The first Control starts the run on the Python path, and the first normalised quaternion is warned about there.
    assert hot.loop.hot_path is not None and hot.loop.hot_path.controls >= 28
    assert hot.sim.simulation.clamped_values == 30


def test_a_long_control_whose_pose_is_warned_about_first_steps_from_that_pose_as_mj_step(make_address):
    # Its first normalised quaternion sends the hot path back to Python, to warn, between applying the pose and
    # the Control's first chunk: the chunks must still start afresh from the new pose.
    model = mujoco.MjModel.from_xml_string(MOCAP_ARM)
    data = mujoco.MjData(model)
    unit = [0.3, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0]
    pose = [0.25, 0.05, 0.45, 2.0, 0.5, -0.5, 1.0]
    with Served(MujocoSimulation.from_xml_string(MOCAP_ARM), make_address("ipc")) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        for _ in range(3):
            client.request(_mocap_control(unit, 0.5))
        long = ControlMessage(objects=_mocap_control(pose, -0.5).objects, steps=LONG_CONTROL_STEPS + 1)
        answer = client.request(long)
    data.mocap_pos[0], data.mocap_quat[0], data.ctrl[0] = unit[:3], unit[3:], 0.5
    mujoco.mj_step(model, data, nstep=3)
    data.mocap_pos[0] = pose[:3]
    data.mocap_quat[0] = np.array(pose[3:]) / math.hypot(*pose[3:])
    data.ctrl[0] = -0.5
    mujoco.mj_step(model, data, nstep=LONG_CONTROL_STEPS + 1)
    assert isinstance(answer, SensorMessage)
    assert answer.objects["arm"].angles == data.qpos.tolist()
    assert answer.objects["arm"].angular_velocities == data.qvel.tolist()
    assert hot.loop.hot_path.controls >= 3  # the long Control among them


def test_a_zero_quaternion_sent_to_the_hot_path_is_refused_in_one_line_and_the_hot_path_keeps_serving(make_address):
    unit = [0.3, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0]
    with Served(MujocoSimulation.from_xml_string(MOCAP_ARM), make_address("ipc")) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        before = [client.request(_mocap_control(unit, 0.5)) for _ in range(5)][-1]
        refused = client.request(_mocap_control([0.1, 0.1, 0.1, 0.0, 0.0, 0.0, 0.0], -0.5))
        after = [client.request(_mocap_control(unit, 0.5)) for _ in range(5)]
    assert isinstance(refused, ErrorMessage) and refused.code == ErrorCode.CONTROL_MISMATCH
    assert refused.text == ("control does not match the handshake: the orientation (qw, qx, qy, qz) of mocap body "
                            "'target' is zero, which is no rotation; (1, 0, 0, 0) keeps the world's")
    assert after[0].simulated_time == pytest.approx(before.simulated_time + 0.005)  # nothing of it was stepped
    assert hot.loop.hot_path.controls >= 8
    assert hot.sim.simulation.data.ctrl.tolist() == [0.5]


def test_a_quaternion_normalised_on_the_hot_path_is_warned_once_with_its_length(make_address, caplog):
    caplog.set_level(logging.WARNING, logger="coupler.mujoco")
    with Served(MujocoSimulation.from_xml_string(MOCAP_ARM), make_address("ipc")) as hot, \
            Client(hot.responder.endpoint, timeout=5.0) as client:
        client.request(HandshakeInitMessage())
        for k in range(6):
            client.request(_mocap_control([0.3, 0.0, 0.5, 2.0 + k, 0.0, 0.0, 0.0], 0.0))
    warnings = [r.getMessage() for r in caplog.records if "is normalised" in r.getMessage()]
    assert warnings == ["the orientation of mocap body 'target' was sent with length 2 and is normalised"]
    assert hot.loop.hot_path.controls >= 4
    assert hot.sim.simulation.clamped_values == 6
