"""perf.frequency's result as markdown: a row per step size and client, real-time and unpaced side by side."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import number, table


def _point(points: list[dict[str, Any]], step_ms: float, client: str, pacing: str) -> dict[str, Any] | None:
    return next((p for p in points if (p["step_ms"], p["client"], p["pacing"]) == (step_ms, client, pacing)), None)


def points_table(result: dict[str, Any]) -> str:
    points = result["points"]
    headers = ["step ms", "client", "target Hz", "real-time lockstep: held Hz", "% of target",
               "RTF", "deadlines missed / steps", "unpaced: max Hz", "max RTF"]
    cells = []
    for step_ms, client in dict.fromkeys((p["step_ms"], p["client"]) for p in points):
        paced = _point(points, step_ms, client, "realtime")
        free = _point(points, step_ms, client, "unpaced")
        cells.append([
            f"{step_ms:g}", client, number(1000.0 / step_ms, 0),
            number(paced["control_hz"], 0) if paced else "–",
            number(100.0 * paced["control_hz"] / paced["target_hz"]) if paced else "–",
            number(paced["real_time_factor"], 3) if paced else "–",
            f"{paced['deadlines_missed']:,} / {paced['server_steps']:,}" if paced else "–",
            number(free["control_hz"], 0) if free else "–",
            number(free["real_time_factor"], 2) if free else "–",
        ])
    return table(headers, cells, [True, False] + [True] * 7)


def render(result: dict[str, Any]) -> str:
    settings = result["settings"]
    server_args = " ".join(settings.get("server_args", []))
    return "\n".join([
        "## Control frequency against simulation step size",
        "",
        f"{result['measured_at']}, {result['host']['cpu']} ({result['host']['logical_cpus']} logical CPUs), "
        f"scene {settings['scene']}, {settings['transport']}, {settings['receive']} receive"
        f"{' (quick)' if settings.get('quick') else ''}" + (f", demo.server {server_args}" if server_args else "")
        + ".",
        "",
        points_table(result),
        "",
        f"Each cell is a fresh demo.server (`--step`, with `--realtime` for lockstep paced to the wall clock) "
        f"and one demo controller. Held and max Hz are the Controls per wall second of the controller's timed "
        f"loop: {settings['seconds']:g} s of simulated time when paced, {settings['unpaced_round_trips']} "
        f"Controls unpaced; RTF is that times the step. Deadlines missed are the paced server's count of steps "
        f"answered more than one step after their wall-clock slot, over the whole run, the pick approach "
        f"included, out of all its steps.",
    ])
