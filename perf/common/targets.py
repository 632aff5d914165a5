"""The performance targets coupler holds itself to, judged from one run's results.

Every target is a ratio of figures measured in the same run (a floor, Click's
server, a step measured alone), never an absolute time, so a noisy shared
machine moves both sides together; where both sides were measured in
alternating slices the ratio is taken slice by slice. A target whose rows a
run did not measure (a --quick run measures a subset) is reported as not
measured, not as missed; one whose figures' spread cannot tell met from
missed is reported as not measured: noisy (perf.common.paired).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perf.common import paired, rtt_slices
from perf.common.markdown import table
from perf.common.spread import Spread

# Real-time lockstep: the smallest step size that must be held, the most deadlines that may be missed,
# and the run length the target is stated for.
REALTIME_MIN_STEP_MS = 0.25
REALTIME_MAX_MISSED = 0.001
REALTIME_SECONDS = 10.0


# The rows the round-trip targets read: every client on ipc with blocking receive.
TARGET_TRANSPORT = "ipc"
# The most coupler's static row may be, by client language: times its ZeroMQ floor, and times the minimal
# ROUTER server's (recorded frames).
FLOOR_LIMITS = {"cpp": 1.15, "python": 1.2}
RECORDED_LIMITS = {"cpp": 1.1}


def judged_on(peer: str, scene: str, client: str, transport: str, receive: str) -> bool:
    """Whether a target is judged on this perf.rtt row, so a short run must measure it."""
    if receive != "blocking" or transport != TARGET_TRANSPORT:
        return False
    if peer == "coupler":
        return scene == "static" or (scene, client) == ("arm", "cpp")
    return (peer, client) == ("recorded", "cpp") or (peer, client) == ("pclick", "cpp")


def ratio_limits(row: dict[str, Any]) -> dict[str, float]:
    """The limits a target sets on a perf.rtt row's p50 ratios, by ratio ("vs_floor", "vs_recorded"): those
    of coupler's static rows on the targets' transport with blocking receive; none for any other row."""
    if (row["peer"], row["scene"], row["transport"], row["receive"]) != ("coupler", "static", TARGET_TRANSPORT,
                                                                      "blocking"):
        return {}
    limits = {"vs_floor": FLOOR_LIMITS.get(row["client"]), "vs_recorded": RECORDED_LIMITS.get(row["client"])}
    return {key: limit for key, limit in limits.items() if limit is not None}


@dataclass(frozen=True)
class Verdict:
    target: str
    measured: str  # the figures behind the verdict, or why there are none
    met: bool | None  # None: not measured by this run
    noisy: bool = False  # measured, but the figures' spread cannot tell: not judged


def _row(rtt: dict[str, Any], peer: str, scene: str, client: str) -> dict[str, Any] | None:
    return next(
        (row for row in rtt["rows"]
         if (row["peer"], row["client"], row["transport"], row["receive"])
         == (peer, client, TARGET_TRANSPORT, "blocking") and (peer == "pclick" or row["scene"] == scene)),
        None,
    )


def _floor(rtt: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    return rtt["floors"][row["floor_index"]]


def _spread(figure: dict[str, float] | float | None) -> Spread | None:
    return Spread.from_json(figure)


def _p50(entry: dict[str, Any]) -> float:
    return entry["p50_us"]["median"]


def _server_cpu(entry: dict[str, Any]) -> float | None:
    cpu = entry["server_cpu_us_per_round_trip"]
    return None if cpu is None else cpu["median"]


def _not_measured(target: str, what: str) -> Verdict:
    return Verdict(target, f"not measured: this run has no {what}", None)


def _language(client: str) -> str:
    return "C++ democlient" if client == "cpp" else "Python client (Session.step)"


def _judged(target: str, measured: str, judgement: paired.Judgement) -> Verdict:
    if judgement is paired.Judgement.NOISY:
        return Verdict(target, measured, None, noisy=True)
    return Verdict(target, measured, judgement is paired.Judgement.MET)


def _ratio_judgement(rtt: dict[str, Any], row: dict[str, Any], key: str, ratio: Spread,
                     limit: float) -> paired.Judgement:
    """A row's ratio (rtt_slices.TO_FLOOR, TO_RECORDED) against its limit: noisy when its middle slices spread
    too wide (paired.spread_wide), else as paired.ratio_to_floor judges it."""
    slices = rtt_slices.ratios(rtt, row).get(key)
    if slices is not None and paired.spread_wide(slices):
        return paired.Judgement.NOISY
    return paired.ratio_to_floor(ratio, limit)


def _ratio_text(ratio: Spread) -> str:
    if ratio.low == ratio.high:  # one slice, or a result written before ratios had spreads
        return f"{ratio.median:.2f} ×"
    return f"{ratio.median:.2f} × ({ratio.low:.2f}–{ratio.high:.2f})"


def floor_ratio(rtt: dict[str, Any], client: str, limit: float) -> Verdict:
    target = f"{_language(client)}, static scene, ipc, blocking: p50 ≤ {limit:g} × the {client} ZeroMQ floor"
    row = _row(rtt, "coupler", "static", client)
    ratio = None if row is None else _spread(row["vs_floor"]["p50"])
    if row is None or ratio is None:
        return _not_measured(target, f"coupler static {client} ipc blocking row")
    measured = f"{_ratio_text(ratio)} ({_p50(row):.1f} µs vs floor {_p50(_floor(rtt, row)):.1f} µs)"
    return _judged(target, measured, _ratio_judgement(rtt, row, rtt_slices.TO_FLOOR, ratio, limit))


def recorded_ratio(rtt: dict[str, Any], client: str, limit: float) -> Verdict:
    target = (f"{_language(client)}, static scene, ipc, blocking: p50 ≤ {limit:g} × the minimal ROUTER server's "
              "(recorded frames)")
    ours, recorded = _row(rtt, "coupler", "static", client), _row(rtt, "recorded", "static", client)
    ratio = None if ours is None or ours["vs_recorded"] is None else _spread(ours["vs_recorded"]["p50"])
    if recorded is None or ratio is None:
        return _not_measured(target, f"coupler static and recorded {client} ipc blocking rows")
    measured = f"{_ratio_text(ratio)} ({_p50(ours):.1f} µs vs {_p50(recorded):.1f} µs)"
    # The recorded server does the least a protocol server can: coupler's below it is as impossible as
    # below the floor.
    return _judged(target, measured, _ratio_judgement(rtt, ours, rtt_slices.TO_RECORDED, ratio, limit))


def recorded_cpu_ratio(rtt: dict[str, Any], limit: float = 1.5) -> Verdict:
    target = (f"C++ democlient, static scene, ipc, blocking: server CPU per round trip ≤ {limit:g} × the minimal "
              "ROUTER server's")
    ours, recorded = _row(rtt, "coupler", "static", "cpp"), _row(rtt, "recorded", "static", "cpp")
    ratio = None if ours is None or ours["vs_recorded"] is None else _spread(ours["vs_recorded"]["server_cpu"])
    if recorded is None or ratio is None:
        return _not_measured(target, "coupler static and recorded cpp ipc blocking rows with CPU times")
    measured = f"{_ratio_text(ratio)} ({_server_cpu(ours):.1f} µs vs {_server_cpu(recorded):.1f} µs)"
    return _judged(target, measured, paired.at_most(ratio, limit))


def _slice_step_rates(row: dict[str, Any], floor: dict[str, Any], step_us: float) -> Spread | None:
    """(floor p50 + step) / row p50, slice by slice; None without slices."""
    if "slices" not in row or "slices" not in floor:
        return None
    ours, theirs = row["slices"]["p50_us"], floor["slices"]["p50_us"]
    return paired.ratio([None if value is None else value + step_us for value in theirs], ours)


def arm_step_rate(rtt: dict[str, Any], limit: float = 0.9) -> Verdict:
    # The rate at the median round trip, not the client loop's round trips per second: that loop's wall time
    # holds every stall of other programs on a shared machine (it read 25-81 % of the bound in short runs
    # where this read 75-77 %), while the bound is made of the floor's median round trip too.
    target = (f"arm scene, unpaced lockstep, C++ democlient, ipc: steps/s at the median round trip (1 / p50) ≥ "
              f"{limit:.0%} of 1 / (floor p50 + one mj_step alone)")
    row = _row(rtt, "coupler", "arm", "cpp")
    step_us = rtt.get("step_cost_us", {}).get("arm")
    if row is None or step_us is None:
        return _not_measured(target, "coupler arm cpp ipc blocking row with the arm's step cost")
    floor = _floor(rtt, row)
    floor_p50, row_p50 = _spread(floor["p50_us"]), _spread(row["p50_us"])
    ratio = _slice_step_rates(row, floor, step_us)
    if ratio is None:  # a result written before slices: the medians, with the widest spread they allow
        ratio = paired.bounds_of_ratio(Spread(floor_p50.median + step_us, floor_p50.low + step_us,
                                              floor_p50.high + step_us), row_p50)
    assert ratio is not None
    measured = (f"{ratio.median:.0%} ({ratio.low:.0%}–{ratio.high:.0%}; {1e6 / row_p50.median:,.0f} of "
                f"{1e6 / (floor_p50.median + step_us):,.0f}/s: p50 {row_p50.median:.1f} µs against floor "
                f"{floor_p50.median:.1f} µs + step {step_us:.1f} µs)")
    slices = rtt_slices.ratios(rtt, row).get(rtt_slices.TO_FLOOR)
    if slices is not None and paired.spread_wide(slices):
        return _judged(target, measured, paired.Judgement.NOISY)
    return _judged(target, measured, paired.at_least(ratio, limit))


def arm_step_cpu(rtt: dict[str, Any], factor: float = 1.3) -> Verdict:
    target = (f"arm scene, unpaced lockstep, C++ democlient, ipc: server CPU per step ≤ the floor server's + "
              f"{factor:g} × one mj_step alone")
    row = _row(rtt, "coupler", "arm", "cpp")
    step_us = rtt.get("step_cost_us", {}).get("arm")
    if row is None or step_us is None or _server_cpu(row) is None:
        return _not_measured(target, "coupler arm cpp ipc blocking row with CPU times and the arm's step cost")
    floor_cpu = _server_cpu(_floor(rtt, row))
    bound = floor_cpu + factor * step_us
    ours = _spread(row["server_cpu_us_per_round_trip"])
    measured = (f"{ours.median:.1f} µs ({ours.low:.1f}–{ours.high:.1f}) vs {bound:.1f} µs (floor server "
                f"{floor_cpu:.1f} µs + {factor:g} × step {step_us:.1f} µs)")
    return _judged(target, measured, paired.at_most(ours, bound))


def versus_click(rtt: dict[str, Any], limit: float = 0.75, idle_limit: float = 1.0) -> Verdict:
    target = (f"C++ democlient, ipc, blocking: coupler's p50 ≤ {limit:g} × Click's demo server's, coupler's idle "
              f"CPU < {idle_limit:g} %")
    ours, click = _row(rtt, "coupler", "static", "cpp"), _row(rtt, "pclick", "", "cpp")
    if ours is None or click is None:
        return _not_measured(target, "coupler static and pclick cpp ipc blocking rows")
    # Not measured in the same slices: the ratio of medians, its spread as wide as the two allow.
    ratio = paired.bounds_of_ratio(_spread(ours["p50_us"]), _spread(click["p50_us"]))
    assert ratio is not None
    idle = ours["server_idle_cpu_percent"]
    measured = f"{_ratio_text(ratio)} ({_p50(ours):.1f} µs vs Click {_p50(click):.1f} µs); idle CPU {idle:.2f} %"
    if idle >= idle_limit:
        return Verdict(target, measured, False)
    return _judged(target, measured, paired.at_most(ratio, limit))


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
            floor_ratio(rtt, "cpp", FLOOR_LIMITS["cpp"]),
            recorded_ratio(rtt, "cpp", RECORDED_LIMITS["cpp"]),
            recorded_cpu_ratio(rtt),
            versus_click(rtt),
            arm_step_rate(rtt),
            arm_step_cpu(rtt),
            floor_ratio(rtt, "python", FLOOR_LIMITS["python"]),
        ]
    if frequency is not None:
        verdicts += realtime(frequency)
    return verdicts


def render(verdicts: list[Verdict]) -> str:
    marks = {True: "met", False: "missed", None: "–"}
    cells = [[verdict.target, verdict.measured, paired.NOISY if verdict.noisy else marks[verdict.met]]
             for verdict in verdicts]
    return "\n".join([
        "## Targets",
        "",
        table(["target", "measured in this run", "verdict"], cells, [False, False, False]),
        "",
        "Ratios of figures from the same run, taken slice by slice where the two were measured alternately, "
        "as the median with the lowest and highest slice's; a target whose rows the run did not measure shows "
        "a dash. A figure whose spread crosses its target, a ratio whose middle slices lie more than "
        f"{paired.MOST_MIDDLE_SPREAD:.0%} apart, or a row faster than its floor (or the minimal "
        f"server) by more than its spread or with a median below {paired.LOWEST_RATIO:g} ×, is not judged: its "
        "verdict reads \"not measured: noisy\". Figures never fail a run.",
    ])
