"""A PNG of a recording: per object, controls and joint angles against simulated time, and the tracking
error of every control that has a joint sensor of the same name."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from coupler.record.recording import Recording  # noqa: E402
from coupler.record.series import series  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402


def plot(recording: str | os.PathLike[str], out: str | os.PathLike[str], dpi: int = 100) -> int:
    """Write the plot of `recording` to `out`; return the number of objects plotted. coupler.Error when
    the recording holds no Control answered with a Sensor."""
    objects = series(Recording(recording))
    if not objects:
        raise Error(f"{recording} holds no Control answered with a Sensor: nothing to plot")
    figure, axes = plt.subplots(len(objects), 2, figsize=(13, 3.6 * len(objects)), squeeze=False)
    for row, (name, s) in enumerate(objects.items()):
        time = np.asarray(s.time)
        controls = np.asarray(s.control_values)
        angles = np.asarray(s.angle_values)
        left, right = axes[row]
        for i, control in enumerate(s.controls):
            line, = left.plot(time, controls[:, i], linestyle="--", linewidth=1, label=f"{control} (control)")
            if control in s.angles:
                left.plot(time, angles[:, s.angles.index(control)], color=line.get_color(), linewidth=1.2)
        left.set_title(f"{name}: controls (dashed) and joint readings")
        left.set_xlabel("simulated time (s)")
        left.legend(fontsize="x-small", ncol=2, loc="best")
        for control_name, c, a in s.tracked():
            right.plot(time, controls[:, c] - angles[:, a], linewidth=1, label=control_name)
        right.set_title(f"{name}: tracking error (control - reading)")
        right.set_xlabel("simulated time (s)")
        if s.tracked():
            right.legend(fontsize="x-small", ncol=2, loc="best")
        for axis in (left, right):
            axis.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(out, dpi=dpi)
    plt.close(figure)
    return len(objects)
