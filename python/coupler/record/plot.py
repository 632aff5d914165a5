"""A PNG of a recording: per object, its controls, the joints they drive and the tracking error of those
that set a joint's position, against simulated time.

Each control is paired with the joint its actuator drives (the handshake's `controlTargets`), and every
axis says its units: torques, forces and angles are never read off one unlabelled axis. A run that starts
again from a Reset is a line of its own. Legends sit below their panels, off the data; a panel with nothing
to show says so.

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
from matplotlib.figure import Figure  # noqa: E402
import numpy as np  # noqa: E402

from coupler.record.world_recording import WorldRecording  # noqa: E402
from coupler.record.series import ObjectSeries, series  # noqa: E402
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


def _units(units: list[str]) -> str:
    return ", ".join(sorted(set(units)))


def _legend(axis: plt.Axes) -> None:
    """The legend below the panel, off the data."""
    axis.legend(fontsize="x-small", ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.22), frameon=False)


def _nothing(axis: plt.Axes, why: str) -> None:
    """Say in the panel why it is empty."""
    axis.text(0.5, 0.5, f"nothing to show:\n{why}", transform=axis.transAxes, ha="center", va="center",
              fontsize="small", color="0.35")
    axis.set_xticks([])
    axis.set_yticks([])


def _runs_apart(time: np.ndarray, *columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """`time` and its `columns` with a row of NaN wherever simulated time goes back (a Reset: a controller that
    starts again, the next controller of a demo), so that each run is a line of its own rather than joined to
    the last by a line drawn back across the panel."""
    back = np.flatnonzero(np.diff(time) < 0) + 1
    if not back.size:
        return (time, *columns)
    return tuple(np.insert(np.asarray(a, dtype=float), back, np.nan, axis=0) for a in (time, *columns))


def draw(objects: dict[str, ObjectSeries], plotted: Plotted) -> Figure:
    """The figure: per object a row of three panels, its controls (each labelled with the joint it drives),
    the readings of the joints they drive, and the tracking error of the controls that set a joint's position."""
    shown = list(objects.items())[:MAX_OBJECTS]
    figure, axes = plt.subplots(len(shown), 3, figsize=(16, 4.2 * len(shown)), squeeze=False, layout="constrained")
    for row, (name, s) in enumerate(shown):
        every = max(1, -(-len(s.time) // MAX_POINTS))
        if every > 1 and not any("points" in note for note in plotted.left_out):
            plotted.left_out.append(f"all but every {every}th of {len(s.time)} points")
        time, controls, angles = _runs_apart(np.asarray(s.time[::every]), np.asarray(s.control_values[::every]),
                                             np.asarray(s.angle_values[::every]))
        left, middle, right = axes[row]
        drawn = list(range(min(len(s.controls), MAX_LINES)))
        if len(s.controls) > MAX_LINES:
            plotted.left_out.append(f"{len(s.controls) - MAX_LINES} controls of {name[:40]!r}")
        driven = {c: a for _, c, a in s.driven()}
        colors: dict[int, str] = {}
        for c in drawn:
            target = f" -> {s.angles[driven[c]]}" if c in driven else ""
            line, = left.plot(time, controls[:, c], linewidth=1,
                              label=f"{s.controls[c]}{target} ({s.control_units[c]})")
            colors[c] = line.get_color()
        left.set_title(f"{name}: controls")
        left.set_ylabel(_units([s.control_units[c] for c in drawn]))
        if drawn:
            _legend(left)
        else:
            _nothing(left, "no control")
        joints = [(c, a) for c, a in driven.items() if c in colors]
        for c, a in joints:
            middle.plot(time, angles[:, a], color=colors[c], linewidth=1.2,
                        label=f"{s.angles[a]} ({s.angle_units[a]}), driven by {s.controls[c]}")
        middle.set_title(f"{name}: joints the controls drive")
        if joints:
            middle.set_ylabel(_units([s.angle_units[a] for _, a in joints]))
            _legend(middle)
        else:
            _nothing(middle, "no control drives a joint with\nangle readings")
        tracked = [(n, c, a) for n, c, a in s.tracked() if c in colors]
        for control_name, c, a in tracked:
            right.plot(time, controls[:, c] - angles[:, a], color=colors[c], linewidth=1,
                       label=f"{control_name} - {s.angles[a]}")
        right.set_title(f"{name}: tracking error (set point - reading)")
        if tracked:
            right.set_ylabel(_units([s.angle_units[a] for _, _, a in tracked]))
            _legend(right)
        else:
            _nothing(right, "no control sets a joint's position\n(torques and forces have no set point)")
        for axis in (left, middle, right):
            axis.set_xlabel("simulated time (s)")
            axis.grid(alpha=0.3)
    return figure


def plot(recording: str | os.PathLike[str], out: str | os.PathLike[str], dpi: int = 100, world: int = 0) -> Plotted:
    """Write the plot of `recording`'s world `world` (see `coupler.record.world_recording`) to `out`; what was
    plotted. coupler.Error when the recording holds no Control answered with a Sensor."""
    read = WorldRecording(recording, world)
    objects = series(read)
    if not objects:
        raise Error(f"{recording} holds no Control answered with a Sensor: nothing to plot")
    plotted = Plotted(min(len(objects), MAX_OBJECTS), ended_early=read.ended_early)
    if len(objects) > MAX_OBJECTS:
        plotted.left_out.append(f"{len(objects) - MAX_OBJECTS} objects after the first {MAX_OBJECTS}")
    figure = draw(objects, plotted)
    if read.worlds:
        figure.suptitle(f"world {world} of the recording's {read.worlds}")
    try:
        figure.savefig(out, dpi=dpi)
    finally:
        plt.close(figure)
    return plotted
