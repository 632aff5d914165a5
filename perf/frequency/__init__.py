"""Achievable control frequency against simulation step size on the arm
scene: in real-time lockstep, the frequency held, the real-time factor and
the deadlines the server missed; without pacing, the most steps per second.
Both demo controllers, C++ and Python, each with a fresh server per run of a
point, the two on one CPU; each figure comes with the lowest and highest of
its timed loop's equal parts.

    python -m perf.frequency                 # steps 10 ... 0.1 ms, 3 runs of 10 s of simulated time a point
    python -m perf.frequency --quick         # steps 5 ... 0.5 ms, 1 run of 0.5 s of simulated time a point, for CI
    python -m perf.frequency --steps 1,0.5 --seconds 5
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from itertools import product
from pathlib import Path
from typing import Any

from perf.common import host
from perf.common import placement
from perf.common import plots
from perf.common import results
from perf.common.endpoints import TRANSPORTS
from perf.common.errors import BenchmarkError
from perf.frequency.measure import CLIENTS, PACINGS, Conditions, Point, PointSpec, measure_point
from perf.frequency import render as frequency_render
from perf.common.arguments import add_output_flags, add_server_args, list_of, positive
from perf.rtt.measure import RECEIVE_MODES

log = logging.getLogger("perf.frequency")

DEFAULT_STEPS_MS = (10.0, 4.0, 2.0, 1.0, 0.5, 0.25, 0.1)
# Four step sizes, so the short table shows where each client stops keeping up with real time.
QUICK_STEPS_MS = (5.0, 2.0, 1.0, 0.5)
DEFAULT_SECONDS = 10.0  # the run length the real-time target is stated for (perf.common.targets)
QUICK_SECONDS = 0.5
DEFAULT_UNPACED_ROUND_TRIPS = 2000
QUICK_UNPACED_ROUND_TRIPS = 1000
# Runs of each point, a fresh server each: the full run's parts then span servers as well as moments; one
# run's parts are what a short run can afford.
DEFAULT_REPETITIONS = 3
QUICK_REPETITIONS = 1


@dataclass(frozen=True)
class Settings:
    steps_ms: tuple[float, ...] = DEFAULT_STEPS_MS
    clients: tuple[str, ...] = CLIENTS
    pacings: tuple[str, ...] = PACINGS
    seconds: float = DEFAULT_SECONDS  # simulated time of each paced point's timed loop
    unpaced_round_trips: int = DEFAULT_UNPACED_ROUND_TRIPS
    scene: str = "arm"
    transport: str = "ipc"
    receive: str = "blocking"
    server_args: tuple[str, ...] = ()
    quick: bool = False
    repetitions: int = DEFAULT_REPETITIONS  # runs of each point, each a fresh server and controller
    pin: bool = True  # each controller and its server on one CPU, the harness on another (perf.common.placement)

    def point_specs(self) -> list[PointSpec]:
        return [PointSpec(*combination) for combination in product(self.steps_ms, self.clients, self.pacings)]

    def round_trips(self, spec: PointSpec) -> int:
        if spec.pacing == "unpaced":
            return self.unpaced_round_trips
        return max(1, round(self.seconds * 1000.0 / spec.step_ms))


def measure(settings: Settings, workdir: Path) -> tuple[list[Point], float]:
    """Every point of the settings, in order; returns them and the seconds the run took."""
    started = time.monotonic()
    conditions = Conditions(settings.scene, settings.transport, settings.receive, settings.server_args,
                            settings.pin)
    specs = settings.point_specs()
    points = []
    for index, spec in enumerate(specs, 1):
        point = Point.combined([measure_point(spec, conditions, settings.round_trips(spec), workdir)
                                for _ in range(settings.repetitions)])
        missed = (
            "" if point.deadlines_missed is None
            else f", {point.deadlines_missed} of {point.server_steps} deadlines missed"
        )
        log.info("[%d/%d] %-32s %9.1f Hz (parts %.1f-%.1f, target %.0f), RTF %.3f%s", index, len(specs),
                 spec.label(), point.control_hz, min(point.part_hz), max(point.part_hz), point.target_hz,
                 point.real_time_factor, missed)
        points.append(point)
    return points, time.monotonic() - started


def _parts(part_hz: list[float], factor: float) -> dict[str, float]:
    return {"low": min(part_hz) * factor, "high": max(part_hz) * factor}


def to_result(settings: Settings, points: list[Point], seconds: float) -> dict[str, Any]:
    return {
        "benchmark": "frequency",
        "measured_at": results.measured_now(),
        "duration_s": seconds,
        "host": host.describe(),
        "settings": {**asdict(settings), "placement": placement.describe(settings.pin)},
        "points": [
            {**asdict(point.spec), **{key: value for key, value in asdict(point).items() if key != "spec"},
             # The loop's frequency with the lowest and highest of its parts', and the real-time factor alike.
             "control_hz_parts": _parts(point.part_hz, 1.0),
             "real_time_factor_parts": _parts(point.part_hz, point.spec.step_ms / 1000.0)}
            for point in points
        ],
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.frequency",
        description="Measure the control frequency each demo controller holds against the demo server at a "
        "range of step sizes: paced to real time (demo.server --realtime: frequency held, real-time factor, "
        "deadlines missed) and unpaced (the most steps per second). One fresh server per point. Writes "
        "frequency.json, frequency.md and frequency.png; prints the table on stdout and a line per point on "
        "stderr. Exits 1 when a process fails, never because of a figure.",
    )
    parser.add_argument("--steps", type=list_of(positive(float)), default=None, metavar="MS,...",
                        help="simulation step sizes in milliseconds (default "
                             f"{','.join(f'{s:g}' for s in DEFAULT_STEPS_MS)}, or "
                             f"{','.join(f'{s:g}' for s in QUICK_STEPS_MS)} with --quick)")
    parser.add_argument("--seconds", type=positive(float), default=None,
                        help="simulated seconds of each paced point's timed loop, so about its wall time when "
                             f"real time is held (default {DEFAULT_SECONDS:g}, or {QUICK_SECONDS:g} with --quick); "
                             "the controllers' pick approach on the arm scene comes first and takes "
                             "3 s of simulated time on top")
    parser.add_argument("--unpaced-round-trips", type=positive(int), default=None, metavar="N",
                        help=f"Controls in each unpaced point's timed loop (default {DEFAULT_UNPACED_ROUND_TRIPS}, "
                             f"or {QUICK_UNPACED_ROUND_TRIPS} with --quick)")
    parser.add_argument("--repetitions", type=positive(int), default=None, metavar="N",
                        help="runs of each point, each with a fresh server and controller; the figures are of "
                             "all runs together, the lowest and highest of their timed loops' equal parts "
                             f"beside them (default {DEFAULT_REPETITIONS}, or {QUICK_REPETITIONS} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="CI run: the quick defaults above, still every client and pacing asked for "
                             "(default: the full defaults)")
    parser.add_argument("--no-pin", action="store_true",
                        help="let the scheduler place every process (default: each controller and its server on "
                             "the second CPU this process may use, with taskset, as perf.rtt places them; "
                             "unpinned with fewer than two CPUs or no taskset)")
    parser.add_argument("--clients", type=list_of(str, CLIENTS), default=",".join(CLIENTS), metavar="LIST",
                        help="comma-separated, of cpp (build/cpp/bin/democlient, or $COUPLER_DEMOCLIENT) and "
                             "python (python -m demo.client) (default: %(default)s)")
    parser.add_argument("--pacings", type=list_of(str, PACINGS), default=",".join(PACINGS), metavar="LIST",
                        help="comma-separated, of realtime (demo.server --realtime) and unpaced "
                             "(default: %(default)s)")
    parser.add_argument("--scene", default="arm", help="demo.server scene, name or MJCF path (default: %(default)s)")
    parser.add_argument("--transport", choices=TRANSPORTS, default="ipc",
                        help="how controller and server connect (default: %(default)s)")
    parser.add_argument("--receive", choices=RECEIVE_MODES, default="blocking",
                        help="the controllers' receive mode: blocking (--blocking-receive) or non-blocking "
                             "polling (default: %(default)s)")
    add_server_args(parser)
    add_output_flags(parser, "frequency", plot=True)
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = QUICK_STEPS_MS if args.quick else DEFAULT_STEPS_MS
    if args.seconds is None:
        args.seconds = QUICK_SECONDS if args.quick else DEFAULT_SECONDS
    if args.unpaced_round_trips is None:
        args.unpaced_round_trips = QUICK_UNPACED_ROUND_TRIPS if args.quick else DEFAULT_UNPACED_ROUND_TRIPS
    if args.repetitions is None:
        args.repetitions = QUICK_REPETITIONS if args.quick else DEFAULT_REPETITIONS
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    settings = Settings(
        steps_ms=args.steps,
        clients=args.clients,
        pacings=args.pacings,
        seconds=args.seconds,
        unpaced_round_trips=args.unpaced_round_trips,
        scene=args.scene,
        transport=args.transport,
        receive=args.receive,
        server_args=tuple(shlex.split(args.server_args)),
        quick=args.quick,
        repetitions=args.repetitions,
        pin=not args.no_pin,
    )
    try:
        if not args.no_plot:
            plots.require_matplotlib()  # before minutes of measuring, not after
        log.info("perf.frequency: %d points, scene %s", len(settings.point_specs()), settings.scene)
        with tempfile.TemporaryDirectory(prefix="coupler-perf-") as workdir:
            points, seconds = measure(settings, Path(workdir))
        result = to_result(settings, points, seconds)
        markdown = frequency_render.render(result)
        written = results.write(args.out, "frequency", result, markdown)
        if not args.no_plot:
            written.append(plots.frequency_plot(result, args.out / "frequency.png"))
    except BenchmarkError as error:
        log.error("perf.frequency: %s", error)
        return 1
    print(markdown)
    log.info("perf.frequency: wrote %s in %.0f s", ", ".join(str(path) for path in written), seconds)
    return 0

