"""The demo server and both demo controllers, run as a user runs them."""

import shutil
import signal
import sys
import time

import pytest

from coupler.wire.messages import ValueType
from coupler.controller.session import Session
from coupler.scenes import SCENES_DIR
from coupler.serve.serve_process import ServeProcess
from peers import address_for, coupler_server, democlient, run


def python_client(address: str, *flags: str):
    return run([sys.executable, "-m", "demo.client", "--addr", address, *flags])


def cpp_client(address: str, *flags: str):
    return run([str(democlient()), "--addr", address, *flags])


@pytest.mark.parametrize("client", [cpp_client, python_client], ids=["cpp", "python"])
def test_demo_controller_moves_the_arm_above_the_box_and_closes_the_gripper(client, tmp_path):
    address = address_for("ipc", tmp_path)
    with coupler_server(address):
        result = client(address, "--range", "100", "--timings")
    assert result.returncode == 0, result.stdout
    assert "gripper closed" in result.stdout
    height = float(result.stdout.split("tool point ")[1].split(" m above")[0])
    offset = float(result.stdout.split("above the box centre, ")[1].split(" m off")[0])
    assert height == pytest.approx(0.125, abs=0.01)
    assert offset < 0.01
    assert "round trip p99" in result.stdout


@pytest.mark.parametrize("client", [cpp_client, python_client], ids=["cpp", "python"])
def test_timings_file_holds_each_timed_round_trip_in_microseconds(client, tmp_path):
    address = address_for("ipc", tmp_path)
    timings = tmp_path / "timings.txt"
    with coupler_server(address, "--scene", "static"):
        result = client(address, "--range", "49", "--timings-file", str(timings))
    assert result.returncode == 0, result.stdout
    round_trips = [float(line) for line in timings.read_text().splitlines()]
    assert len(round_trips) == 50  # --range more after the first
    assert all(0 < us < 5e6 for us in round_trips)


@pytest.mark.parametrize("client", [cpp_client, python_client], ids=["cpp", "python"])
def test_a_timings_file_that_cannot_be_written_fails_before_connecting(client, tmp_path):
    result = client("tcp://127.0.0.1:1", "--timings-file", str(tmp_path / "no" / "such" / "dir" / "t.txt"))
    assert result.returncode != 0
    assert "connecting to" not in result.stdout


@pytest.mark.parametrize("flag", [[], ["--blocking-receive"]], ids=["polling", "blocking"])
def test_cpp_democlient_completes_10000_round_trips_against_the_static_scene(flag, tmp_path):
    address = address_for("tcp", tmp_path)
    with coupler_server(address, "--scene", "static"):
        result = cpp_client(address, "--range", "10000", "--timings", *flag)
    assert result.returncode == 0, result.stdout
    assert "controls sent: 10001" in result.stdout


def test_a_user_supplied_mjcf_path_is_served(tmp_path):
    model = tmp_path / "my_robot.xml"
    shutil.copy(SCENES_DIR / "mobile.xml", model)
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", str(model)):
        with Session(address) as session:
            assert session.handshake.objects["cart"].control_types == [
                ValueType.ANGULAR_VELOCITY_1D, ValueType.ANGULAR_VELOCITY_1D, ValueType.TORQUE_1D, ValueType.FORCE_1D,
            ]


def test_an_unknown_scene_is_refused_with_the_list_of_scenes():
    result = run([sys.executable, "-m", "demo.server", "--scene", "nowhere"])
    assert result.returncode != 0
    assert "no scene 'nowhere'" in result.stdout
    assert "arm" in result.stdout and "static" in result.stdout


def finish(server: ServeProcess, timeout: float = 30.0) -> tuple[int, str]:
    """The exit status and the output of a server that is ending: signalled, or stopping by itself."""
    code = server.wait(timeout)
    return code, server.output()


def test_interrupting_the_server_prints_its_summary(tmp_path):
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", "arm") as server:
        with Session(address) as session:
            controls = session.controls()
            controls["arm"][:] = 0.0  # puts joint4 outside its range, once per control
            for _ in range(10):
                session.step(controls)
        server.send_signal(signal.SIGINT)
        code, out = finish(server)
    assert code == 0, out
    for line in ["simulated time:        0.0200 s", "controls received:     10", "steps without control: 0",
                 "real-time factor:", "steps per wall second:", "values clamped:        10"]:
        assert line in out


def test_stop_after_ends_the_run_after_that_much_simulated_time(tmp_path):
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", "static", "--stop-after", "0.01") as server:
        with Session(address) as session:
            for _ in range(10):
                session.step(session.controls())
        code, out = finish(server)
    assert code == 0, out
    assert "simulated time:        0.0100 s" in out


@pytest.mark.parametrize("mode", ["lockstep", "free"])
def test_exit_on_error_ends_the_server_when_the_controller_leaves(tmp_path, mode):
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", "static", "--mode", mode, "--exit-on-error") as server:
        with Session(address) as session:
            session.step(session.controls())
        code, out = finish(server)
    assert code == 0, out
    assert "controls received:     1" in out


def test_realtime_lockstep_never_runs_ahead_of_the_wall_clock(tmp_path):
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", "arm", "--realtime"), Session(address) as session:
        controls = session.controls()
        # The first Control starts the clock when the server takes it, after it was sent: each answer is due no
        # earlier than its simulated time from there, however late the first one came.
        sent = time.monotonic()
        start = session.step(controls).time - session.handshake.time_step
        for _ in range(100):
            last = session.step(controls).time
        wall = time.monotonic() - sent
    assert wall >= (last - start) * 0.98


def test_free_mode_counts_the_steps_a_slow_controller_did_not_control(tmp_path):
    address = address_for("ipc", tmp_path)
    with coupler_server(address, "--scene", "arm", "--mode", "free", "--stop-after", "0.4") as server:
        with Session(address, timeout=1.0) as session:  # unanswered after the stop: ends the loop
            controls = session.controls()
            try:
                while True:
                    readings = session.step(controls)  # applies, does not step
                    time.sleep(0.02)  # a controller ten times slower than the 2 ms step
            except Exception:
                pass  # the server stopped after 0.4 s of simulated time
        code, out = finish(server)
    assert code == 0, out
    line = next(l for l in out.splitlines() if l.startswith("controller could not keep up"))
    missed, total = (int(x) for x in line.split(": ")[1].replace(" steps", "").split(" of "))
    assert total == 200
    assert missed > total / 2
    assert readings.time > 0


def test_the_server_refuses_to_listen_on_every_interface_unless_allowed():
    result = run([sys.executable, "-m", "demo.server", "--addr", "tcp://*:5555", "--scene", "static"])
    assert result.returncode != 0
    assert "refusing to bind tcp://*:5555" in result.stdout
