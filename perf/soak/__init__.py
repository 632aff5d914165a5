"""Soak test: a million lockstep Control -> Sensor round trips against the
demo server, checking that neither process's resident memory keeps growing
and that no round trip is lost or duplicated.

    python -m perf.soak                 # 1,000,000 round trips, scene arm over ipc
    python -m perf.soak --quick         # 50,000, for CI
    python -m perf.soak --round-trips 200000 --transport tcp
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from coupler.limits import REQUEST_TIMEOUT
from perf.common import host
from perf.common import plots
from perf.common import results
from perf.soak import render as soak_render
from perf.common.arguments import add_output_flags, add_server_args, positive
from perf.common.endpoints import TRANSPORTS
from perf.common.errors import BenchmarkError
from perf.soak.memory import DEFAULT_LIMIT_MIB, KIB_PER_MIB, Sample, growth, reference_round_trip
from perf.soak.run import Conditions, SoakRun, run
from perf.soak.steps import DEFAULT_TOLERANCE

log = logging.getLogger("perf.soak")

DEFAULT_ROUND_TRIPS = 1_000_000
QUICK_ROUND_TRIPS = 50_000
DEFAULT_SAMPLE_EVERY = 10_000
# Short runs sample more often, so their memory curve still has this many points.
MIN_SAMPLES = 50
PROGRESS_SECONDS = 2.0


@dataclass(frozen=True)
class Settings:
    round_trips: int = DEFAULT_ROUND_TRIPS
    scene: str = "arm"
    transport: str = "ipc"
    sample_every: int = DEFAULT_SAMPLE_EVERY
    limit_mib: float = DEFAULT_LIMIT_MIB
    tolerance: float = DEFAULT_TOLERANCE
    timeout: float = REQUEST_TIMEOUT
    server_args: tuple[str, ...] = ()
    quick: bool = False

    @property
    def reference_round_trip(self) -> int:
        return reference_round_trip(self.round_trips)

    def conditions(self) -> Conditions:
        return Conditions(self.scene, self.transport, self.round_trips, self.sample_every, self.tolerance,
                          self.timeout, self.server_args)


def default_sample_every(round_trips: int) -> int:
    return max(1, min(DEFAULT_SAMPLE_EVERY, round_trips // MIN_SAMPLES))


class ProgressLog:
    """A line on stderr at most every PROGRESS_SECONDS, and for the last round trip."""

    def __init__(self, total: int) -> None:
        self.total = total
        self._next = 0.0

    def __call__(self, sample: Sample, report: dict[str, Any]) -> None:
        now = time.monotonic()
        done = sample.round_trips
        if now < self._next and done != self.total:
            return
        self._next = now + PROGRESS_SECONDS
        rate = done / sample.seconds if sample.seconds > 0 else 0.0
        eta = f"{(self.total - done) / rate:.0f} s" if rate > 0 else "–"
        off = report["lost"] + report["duplicated"] + report["irregular"]
        log.info("soak: %s / %s round trips (%.1f%%), %s/s, RSS server %.1f MiB, client %.1f MiB, "
                 "%d off the step, ETA %s", f"{done:,}", f"{self.total:,}", 100.0 * done / self.total,
                 f"{rate:,.0f}", sample.server_kib / KIB_PER_MIB, sample.client_kib / KIB_PER_MIB, off, eta)


def to_result(settings: Settings, soak: SoakRun, seconds: float) -> dict[str, Any]:
    """The JSON document: settings, host, figures, each check's verdict and every sample."""
    reference = settings.reference_round_trip
    memory = {
        process: asdict(growth([(s.round_trips, getattr(s, f"{process}_kib")) for s in soak.samples], reference,
                               settings.limit_mib))
        for process in ("server", "client")
    }
    steps = soak.steps
    round_trips_ok = (steps["round_trips"] == settings.round_trips
                      and steps["lost"] == steps["duplicated"] == steps["irregular"] == 0)
    checks = {
        "server memory": memory["server"]["passed"],
        "client memory": memory["client"]["passed"],
        "round trips": round_trips_ok,
    }
    return {
        "benchmark": "soak",
        "measured_at": results.measured_now(),
        "duration_s": seconds,
        "host": host.describe(),
        "settings": {**asdict(settings), "reference_round_trip": reference, "client": "python perf.soak.client"},
        "loop_seconds": soak.loop_seconds,
        "round_trips_per_second": steps["round_trips"] / soak.loop_seconds if soak.loop_seconds > 0 else 0.0,
        "steps": {key: value for key, value in steps.items() if key != "rss_kib"},
        "memory": memory,
        "checks": checks,
        "passed": all(checks.values()),
        "samples": [asdict(sample) for sample in soak.samples],
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.soak",
        description="Soak test: run lockstep Control -> Sensor round trips against python -m demo.server and "
        "check that (1) the resident memory (VmRSS) of the server and of the controller grows by less than "
        f"--limit-mib from round trip {reference_round_trip(DEFAULT_ROUND_TRIPS):,} (or, in runs shorter than "
        f"{2 * reference_round_trip(DEFAULT_ROUND_TRIPS):,}, from 10% of the run) to the end, and (2) every "
        "reply's simulated time is exactly one time step after the one before: no round trip lost or "
        "duplicated. The controller is the Python coupler Session in a process of its own "
        "(python -m perf.soak.client): it checks every reply itself and reports its own VmRSS, and this "
        "process reads the server's from /proc. It is chosen over the C++ democlient, which would finish "
        "sooner (the server's step is most of a round trip either way) but checks no reply. "
        "The full run takes about 5 minutes on 2 cores. Progress goes to stderr every few seconds; soak.json, soak.md and "
        "soak.png go to --out and the table to stdout. Exits 1 when a check fails or a process dies or hangs; "
        "the rate is reported, never judged.",
    )
    parser.add_argument("--round-trips", type=positive(int), default=None, metavar="N",
                        help=f"round trips in the soak loop (default {DEFAULT_ROUND_TRIPS:,}, "
                             f"or {QUICK_ROUND_TRIPS:,} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"CI run: {QUICK_ROUND_TRIPS:,} round trips unless --round-trips says otherwise "
                             "(default: off)")
    parser.add_argument("--scene", default="arm",
                        help="demo.server scene, a name or an MJCF path; on a scene with an arm the controller "
                             "first runs the demo's pick approach (reset, 3 s of simulated motion), and the "
                             "checks start at the first Control after it (default: %(default)s)")
    parser.add_argument("--transport", choices=TRANSPORTS, default="ipc",
                        help="ipc (a socket in a temporary directory) or tcp (127.0.0.1) (default: %(default)s)")
    parser.add_argument("--sample-every", type=positive(int), default=None, metavar="N",
                        help=f"read both processes' memory every N round trips, and at least every 2 s "
                             f"(default {DEFAULT_SAMPLE_EVERY:,}, or round trips / {MIN_SAMPLES} when that is "
                             "smaller)")
    parser.add_argument("--limit-mib", type=positive(float), default=DEFAULT_LIMIT_MIB, metavar="MIB",
                        help="allowed growth of each process's VmRSS from the reference round trip to the end, "
                             "in MiB; reaching it fails the run (default: %(default)g)")
    parser.add_argument("--tolerance", type=positive(float), default=DEFAULT_TOLERANCE, metavar="FRACTION",
                        help="how far a reply's simulated time may be from one step after the one before, as a "
                             "fraction of the time step (default: %(default)g)")
    parser.add_argument("--timeout", type=positive(float), default=REQUEST_TIMEOUT, metavar="SECONDS",
                        help="the controller gives up when the server does not answer a round trip within this "
                             "time, which fails the run (default: %(default)g)")
    add_server_args(parser)
    add_output_flags(parser, "soak", plot=True)
    args = parser.parse_args(argv)
    if args.round_trips is None:
        args.round_trips = QUICK_ROUND_TRIPS if args.quick else DEFAULT_ROUND_TRIPS
    if args.sample_every is None:
        args.sample_every = default_sample_every(args.round_trips)
    if args.tolerance >= 0.5:
        parser.error(f"--tolerance must be below 0.5 of a step, got {args.tolerance}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    settings = Settings(
        round_trips=args.round_trips,
        scene=args.scene,
        transport=args.transport,
        sample_every=args.sample_every,
        limit_mib=args.limit_mib,
        tolerance=args.tolerance,
        timeout=args.timeout,
        server_args=tuple(shlex.split(args.server_args)),
        quick=args.quick,
    )
    started = time.monotonic()
    try:
        if not args.no_plot:
            plots.require_matplotlib()  # before minutes of soaking, not after
        log.info("perf.soak: %s round trips, scene %s over %s, memory growth measured from round trip %s",
                 f"{settings.round_trips:,}", settings.scene, settings.transport,
                 f"{settings.reference_round_trip:,}")
        with tempfile.TemporaryDirectory(prefix="coupler-soak-") as workdir:
            soak = run(settings.conditions(), Path(workdir), ProgressLog(settings.round_trips))
        result = to_result(settings, soak, time.monotonic() - started)
        markdown = soak_render.render(result)
        written = results.write(args.out, "soak", result, markdown)
        if not args.no_plot:
            written.append(soak_render.plot(result, args.out / "soak.png"))
    except BenchmarkError as error:
        log.error("perf.soak: %s", error)
        return 1
    print(markdown)
    log.info("perf.soak: wrote %s", ", ".join(str(path) for path in written))
    failed = [name for name, passed in result["checks"].items() if not passed]
    if failed:
        log.error("perf.soak: failed: %s", ", ".join(failed))
        return 1
    return 0

