"""`coupler plot` of a recording."""

import sys

import numpy as np
from matplotlib.image import imread

from coupler.record.recording import Recording
from coupler.record.series import series
from peers import run


def test_series_pair_each_control_with_the_joint_angles_that_answer_it(demo_recording):
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
