"""The PNG plots: round-trip time distributions, and control frequency against step size.

matplotlib is needed only here; the tools check for it before measuring,
so a missing matplotlib fails a run at once instead of after it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from perf.common.errors import BenchmarkError

if TYPE_CHECKING:
    from perf.rtt.repetitions import Measured


def require_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise BenchmarkError(
            "the plots need matplotlib, which is not installed: pip install matplotlib (or pass --no-plot)"
        ) from None


def pyplot() -> Any:
    """matplotlib.pyplot drawing to files only (the Agg backend); BenchmarkError without matplotlib."""
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")  # files only; never a window
    import matplotlib.pyplot as plt

    return plt


def _tail(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted round trips and the fraction of round trips at least that slow (a survival curve)."""
    x = np.sort(samples)
    return x, 1.0 - np.arange(x.size) / x.size


def rtt_plot(rows: list[Measured], floors: list[Measured], path: Path) -> Path:
    """One panel per server and scene: each row's round-trip survival curve on log-log axes, so the
    tail out to p99.9 reads as clearly as the median; each blocking row's floor (`floors[i]` is
    `rows[i]`'s) dotted in the same colour."""
    plt = pyplot()
    groups = list(dict.fromkeys((row.spec.peer, row.spec.scene) for row in rows))
    fig, axes = plt.subplots(len(groups), 1, figsize=(10, 3.6 * len(groups)), squeeze=False, sharex=True)
    pairs = list(dict.fromkeys((row.spec.client, row.spec.transport) for row in rows))
    colours = {pair: plt.cm.tab10(i) for i, pair in enumerate(pairs)}
    for ax, (peer, scene) in zip(axes[:, 0], groups):
        shown = [(row, floor) for row, floor in zip(rows, floors) if (row.spec.peer, row.spec.scene) == (peer, scene)]
        for row, _ in shown:
            x, y = _tail(row.samples)
            ax.step(x, y, where="post", color=colours[(row.spec.client, row.spec.transport)],
                    linestyle="-" if row.spec.receive == "blocking" else "--",
                    label=f"{row.spec.client} {row.spec.transport} {row.spec.receive}")
        for row, floor in shown:
            if row.spec.receive != "blocking":
                continue  # one floor a client and transport is enough to read the panel
            x, y = _tail(floor.samples)
            ax.step(x, y, where="post", color=colours[(row.spec.client, row.spec.transport)], linestyle=":",
                    label=f"floor {floor.spec.language} {floor.spec.transport}"
                          # A CURVE row's floor is the plain transport's: the legend says whose floor it is.
                          + ("" if floor.spec.transport == row.spec.transport else f" (of {row.spec.transport})"))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{peer}, scene {scene}")
        ax.set_ylabel("fraction of round trips ≥ x")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.01, 0.5))
    axes[-1, 0].set_xlabel("round trip, Control → Sensor (µs)")
    fig.suptitle("Round-trip time: solid blocking, dashed non-blocking, dotted the REQ/REP floor")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def frequency_plot(result: dict[str, Any], path: Path) -> Path:
    """Control frequency against step size: held in real-time lockstep (filled) and unpaced (hollow),
    with the frequency real time asks for as a line."""
    plt = pyplot()
    points = result["points"]
    fig, ax = plt.subplots(figsize=(8, 5))
    # The real-time line spans a little beyond the measured steps, so it shows even for one step size.
    steps = np.geomspace(min(p["step_ms"] for p in points) / 1.5, max(p["step_ms"] for p in points) * 1.5, 50)
    ax.plot(steps, 1000.0 / steps, color="black", linewidth=1, label="real time: 1 / step")
    clients = list(dict.fromkeys(point["client"] for point in points))
    for i, client in enumerate(clients):
        colour = plt.cm.tab10(i)
        for pacing, marker, fill in (("realtime", "o", colour), ("unpaced", "s", "none")):
            chosen = sorted((p for p in points if p["client"] == client and p["pacing"] == pacing),
                            key=lambda p: p["step_ms"])
            if chosen:
                ax.plot([p["step_ms"] for p in chosen], [p["control_hz"] for p in chosen], marker=marker,
                        color=colour, markerfacecolor=fill, linestyle="-" if pacing == "realtime" else "--",
                        label=f"{client}, {'real-time lockstep' if pacing == 'realtime' else 'unpaced (max)'}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.invert_xaxis()  # smaller steps, harder, to the right
    ax.set_xlabel("simulation step (ms)")
    ax.set_ylabel("control frequency (Controls per wall second)")
    ax.set_title(f"Control frequency against step size, scene {result['settings']['scene']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
