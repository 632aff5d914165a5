"""perf.rtt's result as markdown: the rows with their ratios to the floors, then the floors."""

from __future__ import annotations

from typing import Any

from perf.common.markdown import number, table

_LANGUAGES = {"cpp": "C++ (cppzmq)", "python": "Python (pyzmq)"}
_PERCENTILES = ("p50", "p90", "p99", "p99_9", "max")
_PERCENTILE_HEADERS = ["p50 µs", "p90 µs", "p99 µs", "p99.9 µs", "max µs"]


def _server(row: dict[str, Any], versions: dict[str, str]) -> str:
    version = versions.get(row["peer"])
    return f"{row['peer']} {version}" if version else row["peer"]


def rows_table(result: dict[str, Any]) -> str:
    versions = result["settings"].get("peer_versions", {})
    headers = ["#", "server", "scene", "client", "transport", "receive", "n", *_PERCENTILE_HEADERS,
               "round trips/s", "bytes →/←", "server CPU µs/rt", "idle CPU %", "p50 ÷ floor", "p99 ÷ floor"]
    cells = [
        [
            str(index), _server(row, versions), row["scene"], row["client"], row["transport"], row["receive"],
            str(row["latency_us"]["count"]),
            *(number(row["latency_us"][key]) for key in _PERCENTILES),
            number(row["round_trips_per_second"], 0),
            f"{row['request_bytes']}/{row['reply_bytes']}",
            number(row["server_cpu_us_per_round_trip"]),
            number(row["server_idle_cpu_percent"]),
            number(row["vs_floor"]["p50"], 2),
            number(row["vs_floor"]["p99"], 2),
        ]
        for index, row in enumerate(result["rows"], 1)
    ]
    return table(headers, cells, [True] + [False] * 5 + [True] * 12)


def floors_table(result: dict[str, Any]) -> str:
    headers = ["after #", "floor: REQ/REP ping-pong", "transport", "bytes →/←", "n", *_PERCENTILE_HEADERS,
               "round trips/s"]
    cells = [
        [
            str(index), _LANGUAGES.get(floor["language"], floor["language"]), floor["transport"],
            f"{floor['request_bytes']}/{floor['reply_bytes']}", str(floor["latency_us"]["count"]),
            *(number(floor["latency_us"][key]) for key in _PERCENTILES),
            number(floor["round_trips_per_second"], 0),
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
        ours, theirs = row["latency_us"]["p50"], tcp["latency_us"]["p50"]
        cells.append([row["scene"], row["client"], row["receive"], number(theirs), number(ours),
                      number(ours - theirs), number(ours / theirs, 2)])
    if not cells:
        return None
    headers = ["CURVE against plain TCP: scene", "client", "receive", "tcp p50 µs", "tcp-curve p50 µs",
               "added µs", "ratio"]
    return table(headers, cells, [False, False, False, True, True, True, True])


def _floor_timing(rounds: int) -> str:
    """How a row's floor was measured beside it; a run of one round (or from before rounds) had one floor run,
    after the row's."""
    if rounds == 1:
        return "measured right after the row, so that a shared machine's load weighs on both alike"
    return (f"measured in {rounds} rounds taking turns with the row's: each round is a fresh server and client "
            "for an equal share of the row's round trips, then as many round trips of the floor; the row's figures "
            "pool its rounds (latency from all their round trips, server CPU as their total over all the Controls "
            "answered, idle CPU as the highest round's) and the floor's its own, so that the swings of a shared "
            "machine's load fall on both alike")


def render(result: dict[str, Any]) -> str:
    """Both tables with a heading and the notes a reader needs to read them."""
    settings = result["settings"]
    server_args = " ".join(settings.get("server_args", []))
    rounds = settings.get("rounds", 1)
    lines = [
        "## Round-trip time, Control → Sensor",
        "",
        f"{result['measured_at']}, {result['host']['cpu']} ({result['host']['logical_cpus']} logical CPUs), "
        f"{settings['count']} timed round trips a row{f' in {rounds} rounds' if rounds > 1 else ''}"
        f"{' (quick)' if settings.get('quick') else ''}"
        + (f", demo.server {server_args}" if server_args else "") + ".",
        "",
        rows_table(result),
        "",
        *([curve, ""] if (curve := curve_table(result)) else []),
        floors_table(result),
        "",
        "Each row is a fresh server and one client process: the hold-still Controls after the handshake "
        "(and, on a scene with an arm, after the pick approach), each timed around the whole step in the "
        "client. bytes →/← are the Control and Sensor frames as the server traced them. Server CPU is its "
        "user + system time over the client's run, divided by the Controls it answered (the pick approach's "
        "included); idle CPU is its use of one core over half a second before the client starts (after 0.3 s to settle "
        "from the readiness probe), with a "
        "controller connected and silent. A row's floor is the ping-pong in the client's language, on its "
        f"transport, with its frame sizes, {_floor_timing(rounds)}. A tcp-curve row (TCP with CurveZMQ "
        "encryption and authentication) is set against the plain tcp floor, so its ratio includes what CURVE "
        "costs.",
    ]
    if settings.get("peers"):
        lines += ["", "Click's demo server polls without sleeping, so its CPU time per round trip would be wall "
                  "time, not work: it is not reported; its idle CPU shows the core it spins."]
    return "\n".join(lines)
