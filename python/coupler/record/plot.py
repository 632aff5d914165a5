"""A PNG of a recording: per object, controls and joint angles against simulated time, and the tracking
error of every control that has a joint sensor of the same name.

What is drawn is bounded whatever the recording declares, so a file naming thousands of objects or
controls plots in seconds and little memory: at most MAX_OBJECTS objects (the first in the handshake),
MAX_LINES lines a panel and MAX_POINTS points a line (evenly thinned); the summary says what was left out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")  # files only: no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from coupler.record.recording import Recording  # noqa: E402
from coupler.record.series import series  # noqa: E402
from coupler.wire.errors import Error  # noqa: E402

MAX_OBJECTS = 6
MAX_LINES = 16
MAX_POINTS = 20_000


@dataclass
class Plotted:
    objects: int  # objects drawn
    left_out: list[str] = field(default_factory=list)  # what was not drawn, one phrase each
    ended_early: str | None = None  # where a recording cut short ended, None when it is complete

    def __str__(self) -> str:
        drawn = f"{self.objects} object{'s' if self.objects != 1 else ''}"
        return drawn + (f" (left out: {'; '.join(self.left_out)})" if self.left_out else "")


def plot(recording: str | os.PathLike[str], out: str | os.PathLike[str], dpi: int = 100) -> Plotted:
    """Write the plot of `recording` to `out`; what was plotted. coupler.Error when the recording holds no
    Control answered with a Sensor."""
    read = Recording(recording)
    objects = series(read)
    if not objects:
        raise Error(f"{recording} holds no Control answered with a Sensor: nothing to plot")
    plotted = Plotted(min(len(objects), MAX_OBJECTS), ended_early=read.ended_early)
    if len(objects) > MAX_OBJECTS:
        plotted.left_out.append(f"{len(objects) - MAX_OBJECTS} objects after the first {MAX_OBJECTS}")
    shown = list(objects.items())[:MAX_OBJECTS]
    figure, axes = plt.subplots(len(shown), 2, figsize=(13, 3.6 * len(shown)), squeeze=False)
    for row, (name, s) in enumerate(shown):
        every = max(1, -(-len(s.time) // MAX_POINTS))
        if every > 1 and not any("points" in note for note in plotted.left_out):
            plotted.left_out.append(f"all but every {every}th of {len(s.time)} points")
        time = np.asarray(s.time[::every])
        controls = np.asarray(s.control_values[::every])
        angles = np.asarray(s.angle_values[::every])
        left, right = axes[row]
        drawn = s.controls[:MAX_LINES]
        if len(s.controls) > MAX_LINES:
            plotted.left_out.append(f"{len(s.controls) - MAX_LINES} controls of {name[:40]!r}")
        for i, control in enumerate(drawn):
            line, = left.plot(time, controls[:, i], linestyle="--", linewidth=1, label=f"{control} (control)")
            if control in s.angles:
                left.plot(time, angles[:, s.angles.index(control)], color=line.get_color(), linewidth=1.2)
        left.set_title(f"{name}: controls (dashed) and joint readings")
        left.set_xlabel("simulated time (s)")
        left.legend(fontsize="x-small", ncol=2, loc="upper right")
        tracked = s.tracked()[:MAX_LINES]
        for control_name, c, a in tracked:
            right.plot(time, controls[:, c] - angles[:, a], linewidth=1, label=control_name)
        right.set_title(f"{name}: tracking error (control - reading)")
        right.set_xlabel("simulated time (s)")
        if tracked:
            right.legend(fontsize="x-small", ncol=2, loc="upper right")
        for axis in (left, right):
            axis.grid(alpha=0.3)
    figure.tight_layout()
    try:
        figure.savefig(out, dpi=dpi)
    finally:
        plt.close(figure)
    return plotted
