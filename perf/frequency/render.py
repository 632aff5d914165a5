"""perf.frequency's result as markdown: a row per step size and client, real-time and unpaced side by side."""

from __future__ import annotations

from typing import Any

from perf.common import provenance
from perf.common.markdown import number, table
from perf.common.targets import REALTIME_MAX_MISSED
from perf.frequency.parts import PARTS

# Held within this of the target frequency counts as holding it: a timed loop's ends cost a step or two.
HELD_FRACTION = 0.99


def _point(points: list[dict[str, Any]], step_ms: float, client: str, pacing: str) -> dict[str, Any] | None:
    return next((p for p in points if (p["step_ms"], p["client"], p["pacing"]) == (step_ms, client, pacing)), None)


def keeps_up(paced: dict[str, Any]) -> bool:
    """Real time held: the target frequency within HELD_FRACTION, and at most REALTIME_MAX_MISSED of the
    steps answered late, or one step in a run too short for that fraction to be a whole step."""
    allowed = max(1, int(REALTIME_MAX_MISSED * paced["server_steps"]))
    return paced["control_hz"] >= HELD_FRACTION * paced["target_hz"] and paced["deadlines_missed"] <= allowed


def _with_parts(point: dict[str, Any], key: str, digits: int) -> str:
    """The whole loop's figure, with the lowest and highest of its parts' when the result has them."""
    parts = point.get(f"{key}_parts")
    if not parts or parts["low"] == parts["high"]:
        return number(point[key], digits)
    return f"{number(point[key], digits)} ({number(parts['low'], digits)}–{number(parts['high'], digits)})"


def points_table(result: dict[str, Any]) -> str:
    points = result["points"]
    headers = ["step ms", "client", "target Hz", "real-time lockstep: held Hz", "% of target",
               "RTF", "deadlines missed / steps", "keeps up", "unpaced: max Hz", "max RTF"]
    cells = []
    for step_ms, client in dict.fromkeys((p["step_ms"], p["client"]) for p in points):
        paced = _point(points, step_ms, client, "realtime")
        free = _point(points, step_ms, client, "unpaced")
        cells.append([
            f"{step_ms:g}", client, number(1000.0 / step_ms, 0),
            _with_parts(paced, "control_hz", 0) if paced else "–",
            number(100.0 * paced["control_hz"] / paced["target_hz"]) if paced else "–",
            _with_parts(paced, "real_time_factor", 3) if paced else "–",
            f"{paced['deadlines_missed']:,} / {paced['server_steps']:,}" if paced else "–",
            ("yes" if keeps_up(paced) else "no") if paced else "–",
            _with_parts(free, "control_hz", 0) if free else "–",
            _with_parts(free, "real_time_factor", 2) if free else "–",
        ])
    return table(headers, cells, [True, False] + [True] * 5 + [False] + [True] * 2)


def _parts_note(result: dict[str, Any]) -> str:
    """What the brackets say, when the result has them (one written before points had parts has not)."""
    if not any("control_hz_parts" in point for point in result["points"]):
        return ""
    return (f"In brackets, the lowest and highest of the loops' {PARTS} equal parts each, the controller's own "
            "time between round trips shared among them in proportion: how far the figure strayed within a run. ")


def _runs(settings: dict[str, Any]) -> str:
    runs = settings.get("repetitions", 1)
    return f"{runs} run{'s' if runs > 1 else ''} a cell"


def _pinned(settings: dict[str, Any]) -> str:
    if settings.get("placement", "unpinned") == "unpinned":
        return ", placed by the scheduler"
    return (", the two on one CPU and the harness on another (taskset), as perf.rtt places them: across CPUs "
            "each round trip also pays for waking the other's halted core")


def render(result: dict[str, Any]) -> str:
    settings = result["settings"]
    server_args = " ".join(settings.get("server_args", []))
    return "\n".join([
        "## Control frequency against simulation step size",
        "",
        f"{provenance.run_of(result)}: scene {settings['scene']}, {settings['transport']}, "
        f"{settings['receive']} receive, {_runs(settings)}"
        + (f", {settings['placement']}" if settings.get("placement") else "")
        + (f", demo.server {server_args}" if server_args else "") + ".",
        "",
        points_table(result),
        "",
        f"Each run of a cell is a fresh demo.server (`--step`, with `--realtime` for lockstep paced to the wall "
        f"clock) and one demo controller{_pinned(settings)}. Held and max Hz are the Controls per wall second of "
        f"the controller's timed loops: {settings['seconds']:g} s of simulated time when paced, "
        f"{settings['unpaced_round_trips']} Controls unpaced; RTF is that times the step. {_parts_note(result)}"
        f"Deadlines missed are the paced server's count of steps "
        f"answered more than one step after their wall-clock slot, over the whole run, the pick approach "
        f"included, out of all its steps, summed over the runs. A client keeps up when it holds "
        f"{HELD_FRACTION:.0%} of the target "
        f"frequency with at most {REALTIME_MAX_MISSED:.1%} of the deadlines missed (or one, in a run of fewer "
        f"than {1 / REALTIME_MAX_MISSED:,.0f} steps); the first step size at "
        f"which it does not is where it stops keeping up with real time.",
    ])
