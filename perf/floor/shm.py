"""A lone Control -> Sensor round trip through shared memory against the ZeroMQ ipc floor, in one run.

    python -m perf.floor.shm                 # 5 slices of 2000 round trips each way
    python -m perf.floor.shm --quick         # 3 slices of 300

The static scene's frames are recorded from coupler's demo server once. Then, slice after slice in turn:
zmq_pingpong's REQ/REP ping-pong over ipc:// with frames of the same sizes (the floor perf.rtt measures
against), and shm_round_trip: coupler's C++ client side (the hold-still Control that Controls encodes, each
answer read through the handshake's SensorLayout) against a server answering the recorded frames through
coupler's SharedChannel (a memfd, futex wake-ups, no spinning). The ratio of medians (p50) is taken slice by
slice; the shared-memory server's CPU is read from /proc over a stretch in which nobody sends it anything.
Then the same against `coupler serve --scene static` itself (perf.floor.shm_serve): the democlient through
its socket and through the shared channel it leases, in turn with the floor, with CPU per round trip and the
server's idle CPU while a controller holds the channel.
Target: p50 <= 0.5 x the floor's, with the server idle under 1 % of a core.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from perf.common import host, programs, results
from perf.common.arguments import add_output_flags, positive
from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.processes import ServerProcess, run_client
from perf.floor import shm_serve
from perf.rtt.recording import record
from perf.vision import targets

CLIENT_TIMEOUT = 120.0  # s, one slice's client at most


def _p50(path: Path) -> float:
    return statistics.median(float(line) for line in path.read_text().split())


def _wait_for(path: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise BenchmarkError(f"shm_round_trip's server wrote no channel path within {timeout} s")
        time.sleep(0.02)


def measure(slices: int, count: int, idle_seconds: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="perf-shm-") as folder:
        workdir = Path(folder)
        recording = record("static", workdir, [])
        path_file = workdir / "channel"
        server = ServerProcess([str(programs.shm_round_trip()), "--role", "server", "--path-file", str(path_file),
                                "--handshake", str(recording.handshake), "--sensor", str(recording.sensor)],
                               workdir / "shm_server.log")
        shared_p50, floor_p50, ratios = [], [], []
        with server:
            _wait_for(path_file, 20.0)
            idle = server.idle_cpu_percent(idle_seconds)
            for index in range(slices):
                floor_address = address_for("ipc", workdir)
                sizes = ["--request-bytes", str(recording.control_bytes), "--reply-bytes", str(recording.sensor_bytes)]
                floor_server = ServerProcess([str(programs.zmq_pingpong()), "--role", "server", "--addr",
                                              floor_address, "--count", str(count), *sizes],
                                             workdir / f"floor_server_{index}.log")
                with floor_server:
                    timings = workdir / f"floor_{index}.txt"
                    run_client([str(programs.zmq_pingpong()), "--role", "client", "--addr", floor_address, "--count",
                                str(count), *sizes, "--timings-file", str(timings)], CLIENT_TIMEOUT)
                    floor_server.finish(10.0)
                floor_p50.append(_p50(timings))
                timings = workdir / f"shm_{index}.txt"
                run_client([str(programs.shm_round_trip()), "--role", "client", "--path-file", str(path_file),
                            "--count", str(count), "--timings-file", str(timings)], CLIENT_TIMEOUT)
                shared_p50.append(_p50(timings))
                ratios.append(shared_p50[-1] / floor_p50[-1])
            server.stop()
        serve = shm_serve.measure(workdir, slices, count, idle_seconds, recording.control_bytes,
                                  recording.sensor_bytes)
    return {"control_bytes": recording.control_bytes, "sensor_bytes": recording.sensor_bytes,
            "shared_p50_us": shared_p50, "floor_p50_us": floor_p50, "ratios": ratios,
            "server_idle_cpu_percent": idle, "serve": serve}


def _spread(values: list[float], digits: int = 1) -> str:
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}–{max(values):.{digits}f})"


def _serve_markdown(result: dict) -> list[str]:
    """The rows of `coupler serve`'s channel (perf.floor.shm_serve); none in a result from before it."""
    serve = result.get("serve")
    if serve is None:
        return []
    p50, client, server = serve["p50_us"], serve["client_cpu_us"], serve["server_cpu_us"]
    ratios = serve["ratios"]
    return [
        "",
        "`coupler serve --scene static` with the democlient, the same slices in turn: through the server's socket "
        "(blocking receive) and through the shared channel it leases (`--shared-channel`).",
        "",
        "| round trip | p50 µs | client CPU µs per round trip | server CPU µs per round trip |",
        "|---|---:|---:|---:|",
        f"| coupler serve, shared channel | {_spread(p50['channel'])} | {_spread(client['channel'])} | "
        f"{_spread(server['channel'])} |",
        f"| coupler serve, ZeroMQ ipc | {_spread(p50['socket'])} | {_spread(client['socket'])} | "
        f"{_spread(server['socket'])} |",
        f"| ZeroMQ ipc floor (zmq_pingpong) | {_spread(p50['floor'])} | | |",
        "",
        f"channel ÷ floor, slice by slice: {_spread(ratios, 2)}; the server idle while a controller holds its "
        f"channel: {serve['server_idle_cpu_percent']:.3f} % of a core.",
    ]


def markdown(result: dict) -> str:
    ratios = result["ratios"]
    ratio = statistics.median(ratios)
    idle = result["server_idle_cpu_percent"]
    return "\n".join([
        f"Static scene, C++ client side, {result['slices']} slices of {result['count']} round trips each way in "
        f"turn (Control {result['control_bytes']} bytes, Sensor {result['sensor_bytes']} bytes); median of the "
        "slices, lowest and highest in brackets.",
        "",
        "| round trip | p50 µs |",
        "|---|---:|",
        f"| shared memory, futex wake-ups | {statistics.median(result['shared_p50_us']):.1f} "
        f"({min(result['shared_p50_us']):.1f}–{max(result['shared_p50_us']):.1f}) |",
        f"| ZeroMQ ipc floor (zmq_pingpong) | {statistics.median(result['floor_p50_us']):.1f} "
        f"({min(result['floor_p50_us']):.1f}–{max(result['floor_p50_us']):.1f}) |",
        "",
        f"shared ÷ floor, slice by slice: {ratio:.2f} ({min(ratios):.2f}–{max(ratios):.2f}); the shared-memory "
        f"server idle: {idle:.3f} % of a core.",
        *_serve_markdown(result),
        "",
        targets.render(targets.evaluate_shm(result)),
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.floor.shm", description=__doc__.split("\n\n")[0])
    parser.add_argument("--slices", type=positive(int), default=5,
                        help="slices, each way once per slice in turn (default: %(default)s)")
    parser.add_argument("--count", type=positive(int), default=2000,
                        help="round trips per slice and way (default: %(default)s)")
    parser.add_argument("--idle-seconds", type=float, default=3.0,
                        help="how long the server's idle CPU is watched (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="3 slices of 300 round trips, 0.5 s idle")
    add_output_flags(parser, "shm", plot=False)
    args = parser.parse_args(argv)
    if args.quick:
        args.slices, args.count, args.idle_seconds = 3, 300, 0.5
    started = time.monotonic()
    try:
        result = {"benchmark": "shm", "host": host.describe(), "measured_at": results.measured_now(),
                  "slices": args.slices, "count": args.count, "settings": {"quick": args.quick},
                  **measure(args.slices, args.count, args.idle_seconds)}
        result["duration_s"] = time.monotonic() - started
    except BenchmarkError as error:
        print(f"perf.floor.shm: {error}", file=sys.stderr)
        return 1
    text = markdown(result)
    results.publish(args.out, result, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
