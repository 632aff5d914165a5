"""perf.rtt's result as markdown: the rows with their ratios to the floors and to the recorded server, then
the floors, each figure the median over the repetitions with the lowest and highest."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import number, table

_LANGUAGES = {"cpp": "C++ (cppzmq)", "python": "Python (pyzmq)"}
_TAILS = ("p99", "p99_9")
_TAIL_HEADERS = ["p99 µs", "p99.9 µs"]


def _server(row: dict[str, Any], versions: dict[str, str]) -> str:
    version = versions.get(row["peer"])
    return f"{row['peer']} {version}" if version else row["peer"]


def spread(figure: dict[str, float] | None, digits: int = 1) -> str:
    """"median (low–high)", or a dash without the figure; just the median from a single repetition."""
    if figure is None:
        return "–"
    if figure["low"] == figure["high"]:
        return number(figure["median"], digits)
    return f"{number(figure['median'], digits)} ({number(figure['low'], digits)}–{number(figure['high'], digits)})"


def _ratio(ratios: dict[str, float | None] | None, key: str) -> str:
    return "–" if ratios is None else number(ratios.get(key), 2)


def rows_table(result: dict[str, Any]) -> str:
    versions = result["settings"].get("peer_versions", {})
    headers = ["#", "server", "scene", "client", "transport", "receive", "p50 µs", *_TAIL_HEADERS, "round trips/s",
               "bytes →/←", "server CPU µs/rt", "client CPU µs/rt", "idle CPU %", "floor #", "p50 ÷ floor",
               "server CPU ÷ floor's", "p50 ÷ recorded", "server CPU ÷ recorded's"]
    cells = [
        [
            str(index), _server(row, versions), row["scene"], row["client"], row["transport"], row["receive"],
            spread(row["p50_us"]),
            *(number(row["latency_us"][key]) for key in _TAILS),
            number(row["round_trips_per_second"]["median"], 0),
            f"{row['request_bytes']}/{row['reply_bytes']}",
            spread(row["server_cpu_us_per_round_trip"]),
            spread(row["client_cpu_us_per_round_trip"]),
            number(row["server_idle_cpu_percent"]),
            str(row["floor_index"] + 1),
            _ratio(row["vs_floor"], "p50"),
            _ratio(row["vs_floor"], "server_cpu"),
            _ratio(row["vs_recorded"], "p50"),
            _ratio(row["vs_recorded"], "server_cpu"),
        ]
        for index, row in enumerate(result["rows"], 1)
    ]
    return table(headers, cells, [True] + [False] * 5 + [True] * 14)


def floors_table(result: dict[str, Any]) -> str:
    headers = ["floor #", "REQ/REP ping-pong", "transport", "bytes →/←", "p50 µs", *_TAIL_HEADERS,
               "round trips/s", "server CPU µs/rt", "client CPU µs/rt"]
    cells = [
        [
            str(index), _LANGUAGES.get(floor["language"], floor["language"]), floor["transport"],
            f"{floor['request_bytes']}/{floor['reply_bytes']}", spread(floor["p50_us"]),
            *(number(floor["latency_us"][key]) for key in _TAILS),
            number(floor["round_trips_per_second"]["median"], 0),
            spread(floor["server_cpu_us_per_round_trip"]),
            spread(floor["client_cpu_us_per_round_trip"]),
        ]
        for index, floor in enumerate(result["floors"], 1)
    ]
    return table(headers, cells, [True, False, False] + [True] * 8)


def curve_table(result: dict[str, Any]) -> str | None:
    """Each tcp-curve row beside the plain tcp row of the same scene, client and receive mode: what
    CurveZMQ encryption and authentication add to a round trip. None when the run has no such pair."""
    rows = [row for row in result["rows"] if row["peer"] == "coupler"]
    key = ("scene", "client", "receive")
    plain = {tuple(row[k] for k in key): row for row in rows if row["transport"] == "tcp"}
    cells = []
    for row in rows:
        tcp = plain.get(tuple(row[k] for k in key)) if row["transport"] == "tcp-curve" else None
        if tcp is None:
            continue
        ours, theirs = row["p50_us"]["median"], tcp["p50_us"]["median"]
        cpu = [r["server_cpu_us_per_round_trip"]["median"] for r in (tcp, row)]
        client = [r["client_cpu_us_per_round_trip"]["median"] for r in (tcp, row)]
        cells.append([row["scene"], row["client"], row["receive"], number(theirs), number(ours),
                      number(ours - theirs), number(cpu[1] - cpu[0]), number(client[1] - client[0])])
    if not cells:
        return None
    headers = ["CURVE against plain TCP: scene", "client", "receive", "tcp p50 µs", "tcp-curve p50 µs",
               "added µs", "server CPU added µs/rt", "client CPU added µs/rt"]
    return table(headers, cells, [False, False, False, True, True, True, True, True])


def render(result: dict[str, Any]) -> str:
    """The tables with a heading and the notes a reader needs to read them."""
    settings = result["settings"]
    server_args = " ".join(settings.get("server_args", []))
    repetitions = settings["repetitions"]
    lines = [
        "## Round-trip time, Control → Sensor",
        "",
        f"{result['measured_at']}, {result['host']['cpu']} ({result['host']['logical_cpus']} logical CPUs), "
        f"{settings['count']:,} timed round trips a measurement after {settings['warm_up']:,} of warm-up, "
        f"{repetitions} repetition{'s' if repetitions > 1 else ''}"
        f"{' (quick)' if settings.get('quick') else ''}"
        + (f", demo.server {server_args}" if server_args else "") + ".",
        "",
        rows_table(result),
        "",
        *([curve, ""] if (curve := curve_table(result)) else []),
        floors_table(result),
        "",
        "Each measurement is a fresh server and one client process: after the handshake (and, on a scene with an "
        "arm, the pick approach) and the warm-up, hold-still Controls, each timed around the whole step in the "
        "client. Every row and floor is measured once per repetition, in turn (each floor right after the first "
        "row that needs it), so a shared machine's swings of load fall on all alike; a figure is the median over "
        "the repetitions with the lowest and highest in brackets, p99 and p99.9 are of all repetitions' round "
        "trips together, and ratios are of medians. CPU times are user + system of all a process's threads: "
        "the client's over its warm-up and timed loop, per round trip; the server's from before the client "
        "starts to after it is done, per request answered. Idle CPU is a server's use of one core over half a "
        "second with nobody sending (after 0.3 s to settle from the readiness probe). A row's floor is the "
        "plain REQ/REP ping-pong in the client's language, on its transport (tcp for tcp-curve), with its frame "
        "sizes. The recorded server is a C++ ROUTER socket answering every request with frames recorded from "
        "coupler's static scene (perf/floor/recorded_server.cpp): the least a protocol server could cost, so a "
        "coupler row's ratio to it is the server's share of the overhead and the recorded row's ratio to the "
        "floor the client's.",
    ]
    if settings.get("peers"):
        lines += ["", "Click's demo server polls without sleeping, so its CPU time per round trip would be wall "
                  "time, not work: it is not reported; its idle CPU shows the core it spins."]
    return "\n".join(lines)
