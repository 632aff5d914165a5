"""perf.rtt's result as markdown: the rows with their ratios to the floors, then the floors."""

from __future__ import annotations

from typing import Any

from perf.markdown import number, table

_LANGUAGES = {"cpp": "C++ (cppzmq)", "python": "Python (pyzmq)"}
_PERCENTILES = ("p50", "p90", "p99", "p99_9", "max")
_PERCENTILE_HEADERS = ["p50 µs", "p90 µs", "p99 µs", "p99.9 µs", "max µs"]


def _server(row: dict[str, Any], versions: dict[str, str]) -> str:
    version = versions.get(row["peer"])
    return f"{row['peer']} {version}" if version else row["peer"]


def rows_table(result: dict[str, Any]) -> str:
    versions = result["settings"].get("peer_versions", {})
    headers = ["server", "scene", "client", "transport", "receive", "n", *_PERCENTILE_HEADERS,
               "round trips/s", "bytes →/←", "server CPU µs/rt", "p50 ÷ floor", "p99 ÷ floor"]
    cells = [
        [
            _server(row, versions), row["scene"], row["client"], row["transport"], row["receive"],
            str(row["latency_us"]["count"]),
            *(number(row["latency_us"][key]) for key in _PERCENTILES),
            number(row["round_trips_per_second"], 0),
            f"{row['request_bytes']}/{row['reply_bytes']}",
            number(row["server_cpu_us_per_round_trip"]),
            number(row["vs_floor"]["p50"], 2),
            number(row["vs_floor"]["p99"], 2),
        ]
        for row in result["rows"]
    ]
    return table(headers, cells, [False] * 5 + [True] * 11)


def floors_table(result: dict[str, Any]) -> str:
    headers = ["floor: REQ/REP ping-pong", "transport", "bytes →/←", "n", *_PERCENTILE_HEADERS, "round trips/s"]
    cells = [
        [
            _LANGUAGES.get(floor["language"], floor["language"]), floor["transport"],
            f"{floor['request_bytes']}/{floor['reply_bytes']}", str(floor["latency_us"]["count"]),
            *(number(floor["latency_us"][key]) for key in _PERCENTILES),
            number(floor["round_trips_per_second"], 0),
        ]
        for floor in result["floors"]
    ]
    return table(headers, cells, [False, False] + [True] * 8)


def render(result: dict[str, Any]) -> str:
    """Both tables with a heading and the notes a reader needs to read them."""
    settings = result["settings"]
    server_args = " ".join(settings.get("server_args", []))
    lines = [
        "## Round-trip time, Control → Sensor",
        "",
        f"{result['measured_at']}, {result['host']['cpu']} ({result['host']['logical_cpus']} logical CPUs), "
        f"{settings['count']} timed round trips a row{' (quick)' if settings.get('quick') else ''}"
        + (f", demo.server {server_args}" if server_args else "") + ".",
        "",
        rows_table(result),
        "",
        floors_table(result),
        "",
        "Each row is a fresh server and one client process: the hold-still Controls after the handshake "
        "(and, on a scene with an arm, after the pick approach), each timed around the whole step in the "
        "client. bytes →/← are the Control and Sensor frames as the server traced them. Server CPU is its "
        "user + system time over the client's run, divided by the Controls it answered (the pick approach's "
        "included). A row's floor is the ping-pong in the client's language, on its transport, with its "
        "frame sizes, measured in the same run. A tcp-curve row (TCP with CurveZMQ encryption and "
        "authentication) is set against the plain tcp floor, so its ratio includes what CURVE costs.",
    ]
    if settings.get("peers"):
        lines += ["", "Click's demo server polls without sleeping, so its CPU time would be wall time, not work: "
                  "it is not reported."]
    return "\n".join(lines)
