"""What each reliability feature of coupler's transport costs per round trip.

Starting from a plain pyzmq REQ/REP ping-pong of coupler's static-scene frame
sizes, each step adds one feature coupler's client or server turns on: the
ROUTER envelope, REQ_CORRELATE/REQ_RELAXED, ZMTP heartbeats, a socket
monitor polled beside the socket; then the same over TCP, and TCP with
CURVE. Every step is measured once per repetition, in turn (forwards, then
backwards, so a drift of the load falls on every step alike); the cost of a
feature is taken repetition by repetition, its step minus the step before it
in the same repetition, and reported as the median with the lowest and
highest. A cost below zero by more than its spread is reported as not
measured: noisy.

    python -m perf.reliability            # 20,000 round trips a step, 5 repetitions
    python -m perf.reliability --quick    # 1,000, one repetition: every step runs, no costs (for CI)
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

from coupler.limits import HEARTBEAT
from perf.common import host, paired, provenance, results
from perf.common.arguments import add_output_flags
from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.markdown import number, table
from perf.common.placement import CLIENT, SERVER, pinned
from perf.common.placement import describe as describe_placement
from perf.common.processes import ServerProcess, run_client
from perf.common.program_output import figure
from perf.common.programs import python
from perf.rtt.render import spread
from perf.common.spread import Spread

log = logging.getLogger("perf.reliability")

DEFAULT_COUNT = 20000
QUICK_COUNT = 1000
DEFAULT_REPETITIONS = 5
QUICK_REPETITIONS = 1
# Fewer repetitions give a cost no spread to judge it by: such a run shows each step's figures, not the costs.
MIN_REPETITIONS_FOR_COSTS = 3
HEARTBEAT_SECONDS = HEARTBEAT  # coupler's default


@dataclass(frozen=True)
class Step:
    name: str  # the feature this step adds
    transport: str
    server_flags: tuple[str, ...]
    client_flags: tuple[str, ...]
    curve: bool = False


_ENVELOPE = ("--router",)
_ALL_SERVER = ("--router", "--heartbeat", str(HEARTBEAT_SECONDS), "--monitor")
_ALL_CLIENT = ("--correlate", "--heartbeat", str(HEARTBEAT_SECONDS))
STEPS = (
    Step("plain REQ/REP", "ipc", (), ()),
    Step("+ ROUTER envelope (server)", "ipc", _ENVELOPE, ()),
    Step("+ REQ_CORRELATE and REQ_RELAXED (client)", "ipc", _ENVELOPE, ("--correlate",)),
    Step(f"+ heartbeats every {HEARTBEAT_SECONDS:g} s (both)", "ipc", _ENVELOPE[:1] + ("--heartbeat", str(HEARTBEAT_SECONDS)),
         ("--correlate", "--heartbeat", str(HEARTBEAT_SECONDS))),
    Step("+ socket monitor polled beside the socket (server)", "ipc", _ALL_SERVER, _ALL_CLIENT),
    Step("all of the above over tcp", "tcp", _ALL_SERVER, _ALL_CLIENT),
    Step("+ CURVE (tcp)", "tcp", _ALL_SERVER, _ALL_CLIENT, curve=True),
)


@dataclass
class Measured:
    step: Step
    p50_us: list[float]
    client_cpu_us: list[float]
    server_cpu_us: list[float]


def _peer(role: str, address: str, count: int, flags: tuple[str, ...]) -> list[str]:
    return [python(), "-m", "perf.reliability.peer", "--role", role, "--addr", address, "--count", str(count),
            *flags]


def measure_step(step: Step, count: int, workdir: Path) -> tuple[float, float, float]:
    """(p50, client CPU, server CPU) of one run of `step`, in µs per round trip."""
    workdir = Path(tempfile.mkdtemp(prefix="step-", dir=workdir))
    address = address_for(step.transport, workdir)
    server_flags, client_flags = step.server_flags, step.client_flags
    if step.curve:
        server_public, server_secret = (key.decode() for key in zmq.curve_keypair())
        client_public, client_secret = (key.decode() for key in zmq.curve_keypair())
        # Joined with '=': a Z85 key may begin with '-', which argparse would take for a flag.
        server_flags += (f"--curve-secret={server_secret}",)
        client_flags += (f"--curve-server={server_public}", f"--curve-public={client_public}",
                         f"--curve-secret={client_secret}")
    # Client and server on one CPU, as perf.rtt's: every step pays the same switches, no wake-up of another core.
    with ServerProcess(pinned(_peer("server", address, count, server_flags), SERVER), workdir / "server.log") as server:
        output = run_client(pinned(_peer("client", address, count, client_flags), CLIENT),
                            timeout=60.0 + 0.02 * count)
        log_text = server.finish(timeout=10.0)
    return (figure(output, "round trip p50"), figure(output, "client CPU per round trip"),
            figure(log_text, "server CPU per round trip"))


def measure(count: int, repetitions: int, workdir: Path) -> list[Measured]:
    measured = [Measured(step, [], [], []) for step in STEPS]
    for repetition in range(1, repetitions + 1):
        order = list(enumerate(measured, 1))
        for index, entry in order if repetition % 2 else reversed(order):
            p50, client, server = measure_step(entry.step, count, workdir)
            entry.p50_us.append(p50)
            entry.client_cpu_us.append(client)
            entry.server_cpu_us.append(server)
            log.info("[rep %d/%d, %d/%d] %-52s p50 %7.1f us  client CPU %6.1f  server CPU %6.1f us/rt", repetition,
                     repetitions, index, len(measured), entry.step.name, p50, client, server)
    return measured


def to_result(count: int, repetitions: int, measured: list[Measured], seconds: float,
              quick: bool = False) -> dict[str, Any]:
    steps = []
    for entry in measured:
        steps.append({"step": entry.step.name, "transport": entry.step.transport,
                      **{key: Spread.of(getattr(entry, key)).__dict__ for key in _FIGURES},
                      # Each repetition's figures, in order: a feature's cost is taken repetition by repetition.
                      "repetitions": {key: getattr(entry, key) for key in _FIGURES}})
    return {"benchmark": "reliability", "measured_at": results.measured_now(),
            "duration_s": seconds, "host": host.describe(),
            "settings": {"count": count, "repetitions": repetitions, "quick": quick,
                         "placement": describe_placement(True)}, "steps": steps}


_FIGURES = ("p50_us", "client_cpu_us", "server_cpu_us")


def _added(step: dict[str, Any], before: dict[str, Any], key: str) -> str:
    """What a step adds to the one before it, repetition by repetition: "median (low–high)", or noisy when
    below zero beyond its spread (a feature cannot make a round trip cheaper)."""
    if "repetitions" not in step:  # a result written before costs were paired: the difference of medians
        return number(step[key]["median"] - before[key]["median"])
    cost = paired.difference(step["repetitions"][key], before["repetitions"][key])
    if cost is None:
        return "–"
    if paired.negative(cost):
        return paired.NOISY
    return spread({"median": cost.median, "low": cost.low, "high": cost.high})


def render(result: dict[str, Any]) -> str:
    cells = []
    previous = None
    costs = result["settings"]["repetitions"] >= MIN_REPETITIONS_FOR_COSTS or "repetitions" not in result["steps"][0]
    for step in result["steps"]:
        added = ["–"] * 3 if previous is None or not costs else [_added(step, previous, key) for key in _FIGURES]
        cells.append([step["step"], step["transport"], spread(step["p50_us"]), added[0],
                      spread(step["client_cpu_us"]), added[1], spread(step["server_cpu_us"]), added[2]])
        previous = step
    settings = result["settings"]
    return "\n".join([
        "## What each reliability feature costs a round trip",
        "",
        f"{provenance.run_of(result)}: {settings['count']:,} round trips a step, "
        + (f"median of {settings['repetitions']} repetitions" if settings["repetitions"] > 1 else "one repetition")
        + "; pyzmq on both sides, coupler's static-scene frame sizes (126/990 bytes)"
        + (f", {settings['placement']}" if settings.get("placement") else "") + ".",
        "",
        table(["step", "transport", "p50 µs", "added", "client CPU µs/rt", "added", "server CPU µs/rt", "added"],
              cells, [False, False] + [True] * 6),
        "",
        "Each step adds one feature to the one above it (\"all of the above over tcp\" changes the transport), "
        "so its \"added\" columns are what that feature costs. Every step is measured once per repetition, "
        "in turn, forwards in odd repetitions and backwards in even ones; a cost is taken repetition by "
        "repetition (the step minus the step before it in the same repetition), and every figure is the "
        "median over the repetitions with the lowest and highest in brackets. A cost within its spread of zero "
        "is no measurable cost; one below zero by more than its spread reads \"not measured: noisy\": no "
        "feature makes a round trip cheaper, so such a figure measures the machine, not the feature."
        + ("" if costs else f" This run has fewer than {MIN_REPETITIONS_FOR_COSTS} repetitions, too few for a "
           "cost to have a spread: the costs are left out (the full run measures them)."),
    ])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.reliability",
        description="Measure what each reliability feature of coupler's transport (ROUTER envelope, "
        "REQ_CORRELATE/REQ_RELAXED, heartbeats, socket monitor, CURVE) adds to a pyzmq round trip, one feature "
        "at a time, in interleaved repetitions. Writes reliability.json and reliability.md; prints the table. "
        "Exits 1 when a process fails, never because of a figure.",
    )
    parser.add_argument("--count", type=int, default=None,
                        help=f"timed round trips a step (default {DEFAULT_COUNT}, or {QUICK_COUNT} with --quick)")
    parser.add_argument("--repetitions", type=int, default=None,
                        help=f"times every step is measured, in turn (default {DEFAULT_REPETITIONS}, or "
                             f"{QUICK_REPETITIONS} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"CI run: {QUICK_COUNT} round trips a step, {QUICK_REPETITIONS} repetition: "
                             "every step runs, and the costs, which need at least "
                             f"{MIN_REPETITIONS_FOR_COSTS} repetitions for a spread, are left out "
                             "(default: the full run)")
    add_output_flags(parser, "reliability", plot=False)
    args = parser.parse_args(argv)
    args.count = args.count or (QUICK_COUNT if args.quick else DEFAULT_COUNT)
    args.repetitions = args.repetitions or (QUICK_REPETITIONS if args.quick else DEFAULT_REPETITIONS)
    if args.count < 1 or args.repetitions < 1:
        parser.error("--count and --repetitions must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="coupler-perf-") as workdir:
            measured = measure(args.count, args.repetitions, Path(workdir))
    except BenchmarkError as error:
        log.error("perf.reliability: %s", error)
        return 1
    result = to_result(args.count, args.repetitions, measured, time.monotonic() - started, quick=args.quick)
    markdown = render(result)
    written = results.write(args.out, "reliability", result, markdown)
    print(markdown)
    log.info("perf.reliability: wrote %s", ", ".join(str(path) for path in written))
    return 0
