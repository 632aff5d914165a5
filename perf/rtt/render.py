"""perf.rtt's result as markdown: the rows with their ratios to the floors and to the recorded server, then
the floors, each figure the median over the repetitions with the lowest and highest."""

from __future__ import annotations

from typing import Any

from perf.common import paired, provenance, rtt_slices, targets
from perf.common.markdown import number, table
from perf.common.spread import Spread

_LANGUAGES = {"cpp": "C++ (cppzmq)", "python": "Python (pyzmq)"}
_TAILS = ("p99", "p99_9")
_TAIL_HEADERS = ["p99 µs", "p99.9 µs"]


def _server(row: dict[str, Any], versions: dict[str, str]) -> str:
    version = versions.get(row["peer"])
    return f"{row['peer']} {version}" if version else row["peer"]


def spread(figure: dict[str, float] | float | None, digits: int = 1) -> str:
    """"median (low–high)", or a dash without the figure; just the median from a single repetition (or a
    result written before figures had spreads)."""
    if figure is None:
        return "–"
    if isinstance(figure, (int, float)):
        return number(figure, digits)
    if figure["low"] == figure["high"]:
        return number(figure["median"], digits)
    return f"{number(figure['median'], digits)} ({number(figure['low'], digits)}–{number(figure['high'], digits)})"


def _ratio(ratios: dict[str, dict[str, float] | None] | None, key: str) -> str:
    """A ratio taken slice by slice, as its median with the lowest and highest slice's."""
    return "–" if ratios is None else spread(ratios.get(key), 2)


def self_check(row: dict[str, Any], slices: dict[str, list[float]] | None = None, targets_judged: bool = True) -> str:
    """"ok", or why the row's figures cannot be trusted: a ratio whose middle slices spread more than
    paired.MOST_MIDDLE_SPREAD (`slices`: each ratio's slices, perf.common.rtt_slices), faster than its own floor
    (or coupler's than the minimal server) beyond the spread of the ratio or with a median below
    paired.LOWEST_RATIO, or a ratio a target judges whose spread crosses the target's limit; a dash for a result
    measured before rows had slices, which has no spread of its ratios to check against. Without
    `targets_judged`, only whether the figures are a measurement: a ratio at its target's limit is one."""
    if "slices" not in row:
        return "–"
    limits = targets.ratio_limits(row) if targets_judged else {}
    for key, what in (("vs_floor", "its floor"), ("vs_recorded", "the minimal server")):
        ratio = Spread.from_json((row.get(key) or {}).get("p50"))
        if ratio is None:
            continue
        if slices and key in slices and paired.spread_wide(slices[key]):
            middle = paired.middle(slices[key])
            return f"{paired.NOISY} (middle slices spread {middle.low:.2f}–{middle.high:.2f})"
        if paired.below_floor(ratio):
            return f"{paired.NOISY} (below {what})"
        if key in limits and paired.crosses(ratio, limits[key]):
            return f"{paired.NOISY} (× {what} crosses {limits[key]:g})"
    return "ok"


def rows_table(result: dict[str, Any]) -> str:
    versions = result["settings"].get("peer_versions", {})
    headers = ["#", "server", "scene", "client", "transport", "receive", "p50 µs", *_TAIL_HEADERS, "round trips/s",
               "bytes →/←", "server CPU µs/rt", "client CPU µs/rt", "idle CPU %", "floor #", "p50 ÷ floor",
               "server CPU ÷ floor's", "p50 ÷ recorded", "server CPU ÷ recorded's", "self-check"]
    cells = [
        [
            str(index), _server(row, versions), row["scene"], row["client"], row["transport"], row["receive"],
            spread(row["p50_us"]),
            *(number(row["latency_us"][key]) for key in _TAILS),
            spread(row["round_trips_per_second"], 0),
            f"{row['request_bytes']}/{row['reply_bytes']}",
            spread(row["server_cpu_us_per_round_trip"]),
            spread(row["client_cpu_us_per_round_trip"]),
            number(row["server_idle_cpu_percent"]),
            str(row["floor_index"] + 1),
            _ratio(row["vs_floor"], "p50"),
            _ratio(row["vs_floor"], "server_cpu"),
            _ratio(row["vs_recorded"], "p50"),
            _ratio(row["vs_recorded"], "server_cpu"),
            self_check(row, rtt_slices.ratios(result, row)),
        ]
        for index, row in enumerate(result["rows"], 1)
    ]
    return table(headers, cells, [True] + [False] * 5 + [True] * 13 + [False])


def floors_table(result: dict[str, Any]) -> str:
    headers = ["floor #", "REQ/REP ping-pong", "transport", "bytes →/←", "p50 µs", *_TAIL_HEADERS,
               "round trips/s", "server CPU µs/rt", "client CPU µs/rt"]
    cells = [
        [
            str(index), _LANGUAGES.get(floor["language"], floor["language"]), floor["transport"],
            f"{floor['request_bytes']}/{floor['reply_bytes']}", spread(floor["p50_us"]),
            *(number(floor["latency_us"][key]) for key in _TAILS),
            spread(floor["round_trips_per_second"], 0),
            spread(floor["server_cpu_us_per_round_trip"]),
            spread(floor["client_cpu_us_per_round_trip"]),
        ]
        for index, floor in enumerate(result["floors"], 1)
    ]
    return table(headers, cells, [True, False, False] + [True] * 8)


def _added(ours: dict[str, Any], theirs: dict[str, Any], key: str) -> str:
    """What a row adds to another measured in the same slices, slice by slice, as "median (low–high)"; a cost
    below zero by more than its spread is noise, not a saving."""
    if "slices" not in ours or "slices" not in theirs:  # a result written before slices: medians' difference
        figure = {"p50_us": "p50_us", "server_cpu_us": "server_cpu_us_per_round_trip",
                  "client_cpu_us": "client_cpu_us_per_round_trip"}[key]
        return number(ours[figure]["median"] - theirs[figure]["median"])
    cost = paired.difference(ours["slices"][key], theirs["slices"][key])
    if cost is None:
        return "–"
    if paired.negative(cost):
        return paired.NOISY
    return spread({"median": cost.median, "low": cost.low, "high": cost.high})


def curve_table(result: dict[str, Any]) -> str | None:
    """Each tcp-curve row beside the plain tcp row of the same scene, client and receive mode, measured in
    the same slices: what CurveZMQ encryption and authentication add to a round trip. None when the run has
    no such pair."""
    rows = [row for row in result["rows"] if row["peer"] == "coupler"]
    key = ("scene", "client", "receive")
    plain = {tuple(row[k] for k in key): row for row in rows if row["transport"] == "tcp"}
    cells = []
    for row in rows:
        tcp = plain.get(tuple(row[k] for k in key)) if row["transport"] == "tcp-curve" else None
        if tcp is None:
            continue
        cells.append([row["scene"], row["client"], row["receive"], spread(tcp["p50_us"]), spread(row["p50_us"]),
                      _added(row, tcp, "p50_us"), _added(row, tcp, "server_cpu_us"),
                      _added(row, tcp, "client_cpu_us")])
    if not cells:
        return None
    headers = ["CURVE against plain TCP: scene", "client", "receive", "tcp p50 µs", "tcp-curve p50 µs",
               "added µs", "server CPU added µs/rt", "client CPU added µs/rt"]
    return table(headers, cells, [False, False, False, True, True, True, True, True])


def _method(result: dict[str, Any]) -> str:
    settings = result["settings"]
    repetitions = settings["repetitions"]
    if result["rows"] and "slices" not in result["rows"][0]:
        # Written before rows and floors were measured in alternating slices: each once per repetition, a fresh
        # server each time, and ratios of the medians.
        return (f"{settings['count']:,} timed round trips a measurement after {settings['warm_up']:,} of "
                f"warm-up, {repetitions} repetition{'s' if repetitions > 1 else ''}, each row and floor measured "
                "once per repetition with a fresh server, ratios of medians (an earlier method: no self-check)")
    placed = f", {settings['placement']}" if settings.get("placement") else ""
    return (f"{repetitions} slice{'s' if repetitions > 1 else ''} of {settings['count']:,} timed round trips "
            f"after {settings['warm_up']:,} of warm-up{placed}")


_PINNED = ("Each client and its server run on one CPU, the harness on another (taskset): left to the scheduler, a "
           "pair shares a CPU in one measurement and not in the next, and a round trip across CPUs costs tens of "
           "microseconds more, varying with each wake-up of the other's halted core. ")
_UNPINNED = "The processes were placed by the scheduler (--no-pin, or too few CPUs to pin). "


def _notes(result: dict[str, Any]) -> str:
    """How the figures were measured: the method of slices, or what an earlier result was measured with."""
    if result["rows"] and "slices" not in result["rows"][0]:
        return ("Measured with an earlier method: each row and floor once per repetition, in turn, each time with "
                "a fresh server and client, the processes placed by the scheduler; a figure is the median over the "
                "repetitions with the lowest and highest in brackets, ratios are of medians and carry no spread, "
                "so the self-check cannot judge them. A row's floor is the plain REQ/REP ping-pong in the "
                "client's language, on its transport (tcp for tcp-curve), with its frame sizes; the recorded "
                "server is a C++ ROUTER socket answering frames recorded from coupler's static scene.")
    return (
        "The rows sharing a floor and that floor are measured in alternating slices (rows then floor, then "
        "floor then rows, ...), each slice a fresh client process against servers started once and kept running "
        "(each stopped with SIGSTOP while the others are measured, so an idle server that spins takes no core); "
        "a client's slice is its handshake (and, on a scene with an arm, the pick approach), the warm-up, then "
        "hold-still Controls, each timed around the whole step in the client. "
        + (_UNPINNED if result["settings"].get("placement", "unpinned") == "unpinned" else _PINNED)
        + "A figure is the median over the slices with the lowest and highest in brackets; p99 and p99.9 are of "
        "all slices' round trips together. "
        "Ratios (to the floor, to the recorded server) and the CURVE costs are taken slice by slice, each slice "
        "against the other side's slice measured beside it through the same load, then summarised the same "
        "way. The self-check reads \"not measured: noisy\" when a ratio's middle slices (all but the lowest and "
        f"highest from {paired.MIDDLE_FROM} slices on) lie more than {paired.MOST_MIDDLE_SPREAD:.0%} apart, when a row "
        "is faster than its floor (or coupler's "
        "than the minimal server's) by more than the spread of the ratio, or with a median ratio below "
        f"{paired.LOWEST_RATIO:g} whatever the spread, and when a ratio a target judges has slices on both sides "
        "of the target's limit; a CURVE cost below zero by more than its spread reads the same: no round trip "
        "can do more than its floor in less time, so such a figure measures the machine, not the row. "
        "CPU times are user + system of all a process's threads: "
        "the client's over its warm-up and timed loop, per round trip; the server's over the slice, to the "
        "nanosecond (/proc schedstat), per request answered. Idle CPU is a server's use of one core over half a "
        "second with nobody sending (after 0.3 s to settle from the readiness probe). A row's floor is the "
        "plain REQ/REP ping-pong in the client's language, on its transport (tcp for tcp-curve), with its frame "
        "sizes. The recorded server is a C++ ROUTER socket answering every request with frames recorded from "
        "coupler's static scene (perf/floor/recorded_server.cpp): the least a protocol server could cost, so a "
        "coupler row's ratio to it is the server's share of the overhead and the recorded row's ratio to the "
        "floor the client's."
    )


def render(result: dict[str, Any]) -> str:
    """The tables with a heading and the notes a reader needs to read them."""
    settings = result["settings"]
    server_args = " ".join(settings.get("server_args", []))
    lines = [
        "## Round-trip time, Control → Sensor",
        "",
        f"{provenance.run_of(result)}: {_method(result)}"
        + (f", demo.server {server_args}" if server_args else "") + ".",
        "",
        rows_table(result),
        "",
        *([curve, ""] if (curve := curve_table(result)) else []),
        floors_table(result),
        "",
        _notes(result),
    ]
    if settings.get("peers"):
        lines += ["", "Click's demo server polls without sleeping, so its CPU time per round trip would be wall "
                  "time, not work: it is not reported; its idle CPU shows the core it spins."]
    return "\n".join(lines)
