"""`coupler plot` of a recording."""

import signal
import sys

import numpy as np
import pytest
from matplotlib.image import imread

from coupler.controller.session import Session
from coupler.record.plot import Plotted, draw
from coupler.record.recording import Recording
from coupler.record.series import series
from coupler.serve.serve_process import ServeProcess
from peers import address_for, run


def test_series_pair_each_position_control_with_the_joint_it_sets(demo_recording):
    arm = series(Recording(demo_recording))["arm"]
    assert arm.controls[:7] == [f"joint{i}" for i in range(1, 8)]
    assert len(arm.time) == len(arm.control_values) == len(arm.angle_values) > 50
    assert all(b > a for a, b in zip(arm.time, arm.time[1:]))
    assert [name for name, _, _ in arm.tracked()] == [f"joint{i}" for i in range(1, 8)]


def test_plot_writes_a_png_with_one_row_of_panels_per_object(demo_recording, tmp_path):
    out = tmp_path / "run.png"
    result = run([sys.executable, "-m", "coupler.cli", "plot", str(demo_recording), "--out", str(out), "--dpi", "50"])
    assert result.returncode == 0, result.stdout
    assert "1 object" in result.stdout
    image = imread(out)
    assert image.shape[1] > image.shape[0] > 100
    assert np.ptp(image[..., :3]) > 0.5  # something is drawn, not a blank canvas


def test_plot_of_a_recording_without_controls_fails_naming_the_problem(tmp_path):
    from coupler.record.mcap_log import McapLog

    empty = tmp_path / "empty.mcap"
    McapLog(empty).finish()
    result = run([sys.executable, "-m", "coupler.cli", "plot", str(empty)])
    assert result.returncode == 1
    assert "nothing to plot" in result.stdout


# A cart on a rail carrying an arm on a hinge, both driven by motors whose names are not their joints'.
MOTORS = """<mujoco>
  <worldbody>
    <body name="cart">
      <joint name="rail" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.1 0.1 0.05" mass="1"/>
      <body name="arm" pos="0 0 0.1">
        <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="0.2"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="shoulder_motor" joint="shoulder"/><motor name="rail_push" joint="rail"/></actuator>
</mujoco>
"""


def _recorded_motors(folder, drive):
    """The recording of the motors scene served while `drive(address)` runs; the server stopped with SIGINT."""
    (folder / "motors.xml").write_text(MOTORS)
    address = address_for("ipc", folder)
    with ServeProcess(["--scene", str(folder / "motors.xml"), "--record", str(folder / "run.mcap")],
                      address=address) as server:
        drive(address)
        server.send_signal(signal.SIGINT)
        server.wait(30)
    return folder / "run.mcap"


@pytest.fixture(scope="module")
def motors_recording(tmp_path_factory):
    def drive(address):
        with Session(address, timeout=5.0) as session:
            controls = session.controls()
            for i in range(20):
                controls["cart"][:] = [0.2, 0.5 * (i % 3)]
                session.step(controls)

    return _recorded_motors(tmp_path_factory.mktemp("motors"), drive)


def test_series_pair_each_control_with_the_joint_its_actuator_drives_with_their_units(motors_recording):
    cart = series(Recording(motors_recording))["cart"]
    assert [(name, cart.angles[a]) for name, _, a in cart.driven()] == [("shoulder_motor", "shoulder"),
                                                                        ("rail_push", "rail")]
    assert cart.control_units == ["N m", "N"]
    assert dict(zip(cart.angles, cart.angle_units)) == {"rail": "m", "shoulder": "rad"}
    assert cart.tracked() == []  # a torque and a force: no set point to track


def test_plot_labels_axes_with_units_keeps_legends_off_the_data_and_says_when_a_panel_is_empty(motors_recording):
    figure = draw(series(Recording(motors_recording)), Plotted(1))
    figure.canvas.draw()
    controls, joints, tracking = figure.axes
    assert (controls.get_ylabel(), joints.get_ylabel()) == ("N, N m", "m, rad")
    assert [t.get_text() for t in controls.get_legend().get_texts()] == ["shoulder_motor -> shoulder (N m)",
                                                                         "rail_push -> rail (N)"]
    for axis in (controls, joints):
        assert axis.get_legend().get_window_extent().y1 < axis.get_window_extent().y0
    assert tracking.get_legend() is None
    assert any(text.get_text().startswith("nothing to show") for text in tracking.texts)


@pytest.fixture(scope="module")
def restarted_recording(tmp_path_factory):
    """Two runs of the motors scene, the second from a Reset: simulated time goes back to 0 between them."""
    def drive(address):
        for _ in range(2):
            with Session(address, timeout=5.0) as session:
                session.reset()
                controls = session.controls()
                for i in range(10):
                    controls["cart"][:] = [0.2, 0.1 * i]
                    session.step(controls)

    return _recorded_motors(tmp_path_factory.mktemp("restarted"), drive)


def test_each_run_after_a_reset_is_a_line_of_its_own_not_joined_back_across_the_panel(restarted_recording):
    cart = series(Recording(restarted_recording))["cart"]
    assert len(cart.time) == 20 and cart.time[10] < cart.time[9]
    figure = draw({"cart": cart}, Plotted(1))
    for axis in figure.axes[:2]:
        for line in axis.get_lines():
            x, y = line.get_xdata(), line.get_ydata()
            assert len(x) == 21 and np.isnan(x[10]) and np.isnan(y[10])  # the break between the runs
            assert np.all(np.diff(x[:10]) > 0) and np.all(np.diff(x[11:]) > 0)
