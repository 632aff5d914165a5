"""The performance targets coupler holds itself to, judged from one run's results.

Every target is a ratio of figures measured in the same run (a floor, Click's
server, a step measured alone), never an absolute time, so a noisy shared
machine moves both sides together. A target whose rows a run did not measure
(a --quick run measures a subset) is reported as not measured, not as missed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perf.common.markdown import table

# Real-time lockstep: the smallest step size that must be held, the most deadlines that may be missed,
# and the run length the target is stated for.
REALTIME_MIN_STEP_MS = 0.25
REALTIME_MAX_MISSED = 0.001
REALTIME_SECONDS = 10.0


def judged_on(peer: str, scene: str, client: str, transport: str, receive: str) -> bool:
    """Whether a target is judged on this perf.rtt row, or the cost of CURVE read from it, so a short run
    must measure it."""
    if receive != "blocking":
        return False
    if peer == "coupler":
        return scene == "static" or (scene, client, transport) == ("arm", "cpp", "ipc")
    return peer == "pclick" and client == "cpp"


@dataclass(frozen=True)
class Verdict:
    target: str
    measured: str  # the figures behind the verdict, or why there are none
    met: bool | None  # None: not measured by this run


def _row(rtt: dict[str, Any], peer: str, scene: str, client: str, transport: str) -> dict[str, Any] | None:
    return next(
        (row for row in rtt["rows"]
         if (row["peer"], row["scene"], row["client"], row["transport"], row["receive"])
         == (peer, scene, client, transport, "blocking")),
        None,
    )


def _floor_p50(rtt: dict[str, Any], row: dict[str, Any]) -> float:
    return row["latency_us"]["p50"] / row["vs_floor"]["p50"]


def _not_measured(target: str, what: str) -> Verdict:
    return Verdict(target, f"not measured: this run has no {what}", None)


def floor_ratio(rtt: dict[str, Any], client: str, transport: str, limit: float) -> Verdict:
    language = "C++ democlient" if client == "cpp" else "Python client"
    target = f"{language}, static scene, {transport}, blocking: p50 ≤ {limit:g} × the {client} ZeroMQ floor"
    row = _row(rtt, "coupler", "static", client, transport)
    if row is None:
        return _not_measured(target, f"coupler static {client} {transport} blocking row")
    ratio = row["vs_floor"]["p50"]
    return Verdict(target, f"{ratio:.3f} × ({row['latency_us']['p50']:.1f} µs vs floor "
                           f"{_floor_p50(rtt, row):.1f} µs)", ratio <= limit)


def arm_step_rate(rtt: dict[str, Any], limit: float = 0.8) -> Verdict:
    target = (f"arm scene, unpaced lockstep, C++ democlient, ipc: steps/s ≥ {limit:.0%} of "
              "1 / (floor round trip + one mj_step alone)")
    row = _row(rtt, "coupler", "arm", "cpp", "ipc")
    step_us = rtt.get("step_cost_us", {}).get("arm")
    if row is None or step_us is None:
        return _not_measured(target, "coupler arm cpp ipc blocking row with the arm's step cost")
    floor_us = _floor_p50(rtt, row)
    bound = 1e6 / (floor_us + step_us)
    ratio = row["round_trips_per_second"] / bound
    return Verdict(target, f"{ratio:.0%} ({row['round_trips_per_second']:,.0f} of {bound:,.0f}/s: floor "
                           f"{floor_us:.1f} µs + step {step_us:.1f} µs)", ratio >= limit)


def versus_click(rtt: dict[str, Any], transport: str, limit: float = 0.5) -> Verdict:
    target = f"C++ democlient, {transport}, blocking: coupler's p50 ≤ {limit:g} × Click's demo server's"
    ours = _row(rtt, "coupler", "static", "cpp", transport)
    click = next(
        (row for row in rtt["rows"]
         if (row["peer"], row["client"], row["transport"], row["receive"]) == ("pclick", "cpp", transport, "blocking")),
        None,
    )
    if ours is None or click is None:
        return _not_measured(target, f"coupler static and pclick cpp {transport} blocking rows")
    ratio = ours["latency_us"]["p50"] / click["latency_us"]["p50"]
    return Verdict(target, f"{ratio:.3f} × ({ours['latency_us']['p50']:.1f} µs vs Click "
                           f"{click['latency_us']['p50']:.1f} µs; Click's floor ratio "
                           f"{click['vs_floor']['p50']:.2f})", ratio <= limit)


def realtime(frequency: dict[str, Any]) -> list[Verdict]:
    seconds = frequency["settings"]["seconds"]
    verdicts = []
    for point in frequency["points"]:
        if point["pacing"] != "realtime" or point["step_ms"] < REALTIME_MIN_STEP_MS:
            continue
        target = (f"real-time lockstep at {point['step_ms']:g} ms, {point['client']} controller: "
                  f"< {REALTIME_MAX_MISSED:.1%} of deadlines missed in a {REALTIME_SECONDS:g} s run")
        missed = point["deadlines_missed"] / point["server_steps"]
        measured = f"{missed:.3%} ({point['deadlines_missed']:,} of {point['server_steps']:,} steps, {seconds:g} s run)"
        if seconds < REALTIME_SECONDS:
            verdicts.append(Verdict(target, measured + f"; the run was shorter than {REALTIME_SECONDS:g} s", None))
        else:
            verdicts.append(Verdict(target, measured, missed < REALTIME_MAX_MISSED))
    if not verdicts:
        verdicts.append(_not_measured("real-time lockstep down to 0.25 ms", "real-time point of 0.25 ms or more"))
    return verdicts


def evaluate(rtt: dict[str, Any] | None, frequency: dict[str, Any] | None) -> list[Verdict]:
    verdicts = []
    if rtt is not None:
        verdicts += [
            floor_ratio(rtt, "cpp", "ipc", 1.25),
            floor_ratio(rtt, "cpp", "tcp", 1.3),
            floor_ratio(rtt, "python", "ipc", 1.2),
            floor_ratio(rtt, "python", "tcp", 1.2),
            arm_step_rate(rtt),
            versus_click(rtt, "ipc"),
            versus_click(rtt, "tcp"),
        ]
    if frequency is not None:
        verdicts += realtime(frequency)
    return verdicts


def render(verdicts: list[Verdict]) -> str:
    marks = {True: "met", False: "missed", None: "–"}
    cells = [[verdict.target, verdict.measured, marks[verdict.met]] for verdict in verdicts]
    return "\n".join([
        "## Targets",
        "",
        table(["target", "measured in this run", "verdict"], cells, [False, False, False]),
        "",
        "Ratios of figures from the same run; a target whose rows the run did not measure shows a dash. "
        "Figures never fail a run.",
    ])
