"""Round-trip time of Control -> Sensor, for every client and transport
against coupler's demo server on its scenes, a minimal C++ ROUTER server
answering frames recorded from it and (with --peer pclick) Click's demo
server, each set against a plain ZeroMQ REQ/REP ping-pong of the same frame
sizes and the same client language. The rows sharing a floor and the floor
are measured in alternating slices against servers kept running (a fresh
client each slice); a row's ratio to its floor is taken slice by slice and
reported as the median with the lowest and highest, with both processes'
CPU time per round trip.

    python -m perf.rtt --peer pclick    # 5 slices of 20,000 round trips (5 to 10 minutes)
    python -m perf.rtt --quick          # 7 slices of 1,400, the rows the targets and the docs need, for CI
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from contextlib import ExitStack
from itertools import groupby, product
from pathlib import Path
from typing import Any

import numpy as np

from perf.common import host
from perf.common import paired
from perf.common import placement
from perf.common import plots
from perf.common import results
from perf.common import targets
from perf.common.endpoints import CURVE_TRANSPORT, TRANSPORT_CHOICES, floor_transport
from perf.common.errors import BenchmarkError
from perf.common.arguments import add_output_flags, add_server_args, list_of
from perf.rtt.measure import (
    CLIENTS,
    COUPLER,
    PCLICK,
    PCLICK_SCENE,
    RECEIVE_MODES,
    RECORDED,
    RECORDED_SCENE,
    FloorSpec,
    RowSpec,
    Run,
    pclick_version,
)
from perf.rtt import render as rtt_render
from perf.rtt.recording import record
from perf.rtt.series import FloorSeries, RowSeries, start_rows
from perf.common.spread import Spread
from perf.rtt.repetitions import Measured
from perf.common.step_cost import step_cost_us

log = logging.getLogger("perf.rtt")

DEFAULT_COUNT = 20000
# Thousands of round trips a slice, so one stall of a shared machine does not decide a slice's median.
QUICK_COUNT = 1400
# Slices: enough for a median with a spread that says how far one slice strays. The short run's are more
# and shorter: on a shared machine the floor's round trips cost 10-15 µs more in episodes of 10-100 ms
# (docs/performance.md), and with 5 slices of 2,000 one run in 16 read the recorded server at 0.91 × a floor
# it reads at 1.09 in the others; with 7 of 1,400, 8 runs in a row agreed within 2.2 %.
DEFAULT_REPETITIONS = 5
QUICK_REPETITIONS = 7
DEFAULT_WARM_UP = 1000
QUICK_WARM_UP = 200
DEFAULT_SCENES = ("static", "arm")


@dataclass(frozen=True)
class Settings:
    count: int = DEFAULT_COUNT  # timed round trips of every row and floor in every slice
    repetitions: int = DEFAULT_REPETITIONS  # slices: each row and its floor, alternately
    warm_up: int = DEFAULT_WARM_UP  # round trips before the timed ones, left out of the figures
    scenes: tuple[str, ...] = DEFAULT_SCENES
    transports: tuple[str, ...] = TRANSPORT_CHOICES
    clients: tuple[str, ...] = CLIENTS
    receive_modes: tuple[str, ...] = RECEIVE_MODES  # of coupler's rows on the first scene; all others block
    peers: tuple[str, ...] = ()  # servers measured besides coupler's and the recorded one: PCLICK
    server_args: tuple[str, ...] = ()  # extra flags for demo.server
    quick: bool = False
    pin: bool = True  # clients and servers on one CPU, the harness on another (perf.common.placement)

    def row_specs(self) -> list[RowSpec]:
        """Every row, those sharing a floor next to each other. Blocking receive everywhere; the other
        receive modes on coupler's first scene; tcp-curve on coupler's first scene only (the CURVE cost);
        the recorded server serves the frames of the static scene. With `quick`, the rows the targets and the
        docs need."""
        specs = []
        for client, transport in product(self.clients, self.transports):
            curve = transport == CURVE_TRANSPORT
            if not curve and RECORDED_SCENE in self.scenes:
                specs.append(RowSpec(RECORDED, RECORDED_SCENE, client, transport, "blocking"))
            for index, scene in enumerate(self.scenes):
                if curve and index > 0:
                    continue
                modes = self.receive_modes if index == 0 and not curve else ("blocking",)
                specs += [RowSpec(COUPLER, scene, client, transport, receive) for receive in _blocking_first(modes)]
            if not curve:
                specs += [RowSpec(peer, PCLICK_SCENE, client, transport, "blocking") for peer in self.peers]
        specs = sorted(specs, key=_floor_group)  # stable: the order above within a group
        if not self.quick:
            return specs
        # Fewer rows measured well rather than every row measured badly: those the targets are judged on,
        # every scene of every client on the targets' transport, and what tcp and CURVE cost once, for the
        # first client on the first scene.
        chosen = {spec for spec in specs if targets.judged_on(spec.peer, spec.scene, spec.client, spec.transport,
                                                              spec.receive)}
        chosen |= {spec for spec in specs if (spec.peer, spec.transport, spec.receive) == (COUPLER,
                                                                                          targets.TARGET_TRANSPORT,
                                                                                          "blocking")}
        chosen |= {spec for spec in specs if (spec.peer, spec.client, spec.scene, spec.receive) == (
            COUPLER, self.clients[0], self.scenes[0], "blocking") and spec.transport != targets.TARGET_TRANSPORT}
        return [spec for spec in specs if spec in chosen] or specs[:1]


def _blocking_first(modes: tuple[str, ...]) -> list[str]:
    return sorted(modes, key=lambda mode: mode != "blocking")


def _floor_group(spec: RowSpec) -> tuple:
    """Rows with the same floor sort together: client language, floor transport, and frame sizes, which
    follow from the scene (the recorded server answers the static scene's frames)."""
    return (spec.client, floor_transport(spec.transport), spec.peer == PCLICK, spec.scene if spec.peer == COUPLER
            else RECORDED_SCENE)


@dataclass
class Measurements:
    rows: list[Measured]
    floors: list[Measured]
    floor_of: list[int]  # rows[i]'s floor is floors[floor_of[i]]
    step_costs_us: dict[str, float | None]  # one mj_step of each coupler scene alone; None without physics
    seconds: float


def _floor_spec(spec: RowSpec, sizes: tuple[int, int]) -> FloorSpec:
    return FloorSpec(spec.client, floor_transport(spec.transport), *sizes)


FLOOR = "floor"


def slice_plan(slices: int, rows: int) -> list[list[int | str]]:
    """The order of a floor group's measurements, slice by slice: each row (by index) and the FLOOR once a
    slice, rows then floor in odd slices and floor then rows in even ones, so a drift of the machine's load
    over the group falls on both sides alike. The first slice starts with the rows: the first row's frames
    say the floor's sizes."""
    plan = []
    for index in range(slices):
        turns: list[int | str] = list(range(rows))
        plan.append(turns + [FLOOR] if index % 2 == 0 else [FLOOR] + turns)
    return plan


def _measure_group(rows: list[RowSeries], settings: Settings,
                   workdir: Path) -> tuple[list[list[Run]], FloorSpec, list[Run]]:
    """The rows sharing one floor, their servers started and stopped (start_rows), and that floor, in
    alternating slices (slice_plan). The floor's server starts after the first slice of the first row, which
    says the frame sizes."""
    count, warm_up = settings.count, settings.warm_up
    specs = [row.spec for row in rows]
    with ExitStack() as stack:
        floor: FloorSeries | None = None
        for index, turns in enumerate(slice_plan(settings.repetitions, len(rows))):
            for turn in turns:
                if turn != FLOOR:
                    rows[turn].measure_slice(count, warm_up)
                    continue
                if floor is None:
                    floor = stack.enter_context(
                        FloorSeries(_floor_spec(specs[0], rows[0].frame_bytes()), workdir, count, warm_up,
                                    settings.pin))
                floor.measure_slice()
            assert floor is not None
            floor_p50 = float(np.quantile(floor.slices[-1].samples, 0.5, method="nearest"))
            for row in rows:
                row_p50 = float(np.quantile(row.slices[-1].samples, 0.5, method="nearest"))
                log.info("[slice %d/%d] %-44s p50 %7.1f us  floor %7.1f us  ratio %5.2f", index + 1,
                         settings.repetitions, row.spec.label(), row_p50, floor_p50, row_p50 / floor_p50)
        assert floor is not None
        return [row.finish() for row in rows], floor.spec, floor.finish()


def measure(settings: Settings, workdir: Path) -> Measurements:
    """Every row of the settings and every floor they need, one floor group after another, each group in
    alternating slices (see _measure_group)."""
    started = time.monotonic()
    specs = settings.row_specs()
    recording = None
    if any(spec.peer == RECORDED for spec in specs):
        recording = record(RECORDED_SCENE, workdir, list(settings.server_args))
        log.info("[recorded] %s scene: Control %d bytes, Sensor %d bytes", RECORDED_SCENE, recording.control_bytes,
                 recording.sensor_bytes)
    rows: list[Measured] = []
    floors: list[Measured] = []
    floor_of: list[int] = []
    with ExitStack() as stack:
        # Every row server of the run at once: they start side by side, then wait stopped for their group.
        groups = [[stack.enter_context(RowSeries(spec, workdir, list(settings.server_args), recording, settings.pin))
                   for spec in group] for _, group in groupby(specs, key=_floor_group)]
        start_rows([row for group in groups for row in group])
        log.info("[servers] %d started (%.0f s)", len(specs), time.monotonic() - started)
        for group in groups:
            row_runs, floor_spec, floor_runs = _measure_group(group, settings, workdir)
            floors.append(Measured(floor_spec, floor_runs))
            for row, runs in zip(group, row_runs):
                rows.append(Measured(row.spec, runs))
                floor_of.append(len(floors) - 1)
            log.info("[group] %-45s done (%.0f s)", floor_spec.label(), time.monotonic() - started)
    step_costs = {}
    for scene in settings.scenes:
        step_costs[scene] = step_cost_us(scene)
        if step_costs[scene] is not None:
            log.info("[step] %-47s %8.1f us a step alone", scene, step_costs[scene])
    return Measurements(rows, floors, floor_of, step_costs, time.monotonic() - started)


def _spread(spread: Spread | None) -> dict[str, float] | None:
    return None if spread is None else asdict(spread)


def _paired(ours: Measured, theirs: Measured) -> dict[str, dict[str, float] | None]:
    """Ratios of two series measured in the same slices, slice by slice: p50 and both CPU times."""
    def of(figure: str) -> dict[str, float] | None:
        return _spread(paired.ratio([getattr(run, figure) for run in ours.runs],
                                    [getattr(run, figure) for run in theirs.runs]))
    return {"p50": of("p50"), "server_cpu": of("server_cpu_us"), "client_cpu": of("client_cpu_us")}


def _figures(measured: Measured) -> dict[str, Any]:
    request_bytes, reply_bytes = measured.frame_bytes
    return {
        "repetitions": len(measured.runs),  # slices
        "p50_us": _spread(measured.p50),
        "latency_us": asdict(measured.latency),
        "round_trips_per_second": _spread(measured.round_trips_per_second),
        "request_bytes": request_bytes,
        "reply_bytes": reply_bytes,
        "server_cpu_us_per_round_trip": _spread(measured.server_cpu_us),
        "client_cpu_us_per_round_trip": _spread(measured.client_cpu_us),
        # Each slice's own figures, in order: what paired figures (ratios, differences) are taken from.
        "slices": {"p50_us": [run.p50 for run in measured.runs],
                   "server_cpu_us": [run.server_cpu_us for run in measured.runs],
                   "client_cpu_us": [run.client_cpu_us for run in measured.runs]},
    }


def _recorded_row(measured: Measurements, spec: RowSpec) -> Measured | None:
    """The recorded server's row a coupler static row is set against: same client, transport and frames, and
    measured in the same slices (the same floor group)."""
    if spec.peer != COUPLER or spec.scene != RECORDED_SCENE:
        return None
    transport = floor_transport(spec.transport)
    return next((row for row in measured.rows if row.spec == RowSpec(RECORDED, RECORDED_SCENE, spec.client,
                                                                      transport, "blocking")), None)


def to_result(settings: Settings, measured: Measurements, peer_versions: dict[str, str]) -> dict[str, Any]:
    """The JSON document: settings, host, every row with its ratios to its floor (and to the recorded server),
    every floor."""
    rows = []
    for row, which in zip(measured.rows, measured.floor_of):
        floor = measured.floors[which]
        recorded = _recorded_row(measured, row.spec)
        rows.append({
            **asdict(row.spec),
            **_figures(row),
            "server_round_trips": sum(run.server_round_trips or 0 for run in row.runs) or None,
            "server_idle_cpu_percent": row.server_idle_cpu_percent,
            "floor": asdict(floor.spec),
            "floor_index": which,
            "vs_floor": _paired(row, floor),
            "vs_recorded": None if recorded is None else _paired(row, recorded),
        })
    floors = [{**asdict(floor.spec), **_figures(floor)} for floor in measured.floors]
    return {
        "benchmark": "rtt",
        "measured_at": results.measured_now(),
        "duration_s": measured.seconds,
        "host": host.describe(),
        "settings": {**asdict(settings), "peer_versions": peer_versions,
                     "placement": placement.describe(settings.pin)},
        "rows": rows,
        "floors": floors,
        "step_cost_us": measured.step_costs_us,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.rtt",
        description="Measure Control -> Sensor round trips of the C++ and Python clients against coupler's demo "
        "server, a minimal C++ ROUTER server answering frames recorded from it, and (with --peer pclick) Click's "
        "demo server, and plain ZeroMQ REQ/REP ping-pongs of the same frame sizes as floors. The rows sharing a "
        "floor and the floor are measured in alternating slices against servers kept running, a fresh client "
        "each slice; ratios are taken slice by slice; figures are medians over the slices with the lowest and "
        "highest, with the client's and the server's CPU time per round trip. A verdict whose figures' spread "
        "cannot tell reads 'not measured: noisy'. Writes rtt.json, rtt.md and "
        "rtt.png; prints the tables and the targets on stdout and a line per measurement on stderr. Exits 1 when "
        "a process fails, never because of a timing figure.",
    )
    parser.add_argument("--count", type=int, default=None,
                        help=f"timed round trips of every row and floor in every slice (default {DEFAULT_COUNT}, "
                             f"or {QUICK_COUNT} with --quick)")
    parser.add_argument("--repetitions", type=int, default=None,
                        help="slices: times every row and its floor are measured, alternately, each time with a "
                             "fresh client against the same servers "
                             f"(default {DEFAULT_REPETITIONS}, or {QUICK_REPETITIONS} with --quick)")
    parser.add_argument("--warm-up", type=int, default=None,
                        help="round trips every client makes before the timed ones, left out of the latency "
                             f"(default {DEFAULT_WARM_UP}, or {QUICK_WARM_UP} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"CI run: {QUICK_REPETITIONS} slices of {QUICK_COUNT} round trips unless "
                             "--count or --repetitions says otherwise, and a subset of the rows: those the "
                             "targets are judged on, every scene of every client on ipc with blocking receive, "
                             "and tcp and tcp-curve for the first client on the first scene (default: every row)")
    parser.add_argument("--scenes", type=list_of(str), default=",".join(DEFAULT_SCENES), metavar="LIST",
                        help="comma-separated demo.server scenes, names or MJCF paths; the recorded server's "
                             "rows come with the static scene (default: %(default)s)")
    parser.add_argument("--transports", type=list_of(str, TRANSPORT_CHOICES), default=",".join(TRANSPORT_CHOICES),
                        metavar="LIST",
                        help="comma-separated, of ipc, tcp and tcp-curve: IPC in a temporary directory, TCP on "
                             "127.0.0.1, and TCP with CurveZMQ encryption and authentication (coupler's first "
                             "scene only, keys made for each row, set against the plain tcp floor) "
                             "(default: %(default)s)")
    parser.add_argument("--clients", type=list_of(str, CLIENTS), default=",".join(CLIENTS), metavar="LIST",
                        help="comma-separated, of cpp (build/cpp/bin/democlient, or $COUPLER_DEMOCLIENT) "
                             "and python (python -m demo.client, through Session.step) (default: %(default)s)")
    parser.add_argument("--receive-modes", type=list_of(str, RECEIVE_MODES), default=",".join(RECEIVE_MODES),
                        metavar="LIST",
                        help="comma-separated, of blocking (--blocking-receive) and non-blocking (polling, "
                             "sleeping in zmq_poll), for coupler's rows on the first scene; every other row "
                             "blocks (default: %(default)s)")
    parser.add_argument("--peer", action="append", choices=[PCLICK], default=[],
                        help="also measure the same clients against this server: pclick is Click's reference "
                             "demo server, run from .venv-pclick (or $COUPLER_PCLICK_PYTHON); it spins while "
                             "idle, so its CPU time is not reported (default: no other server)")
    parser.add_argument("--no-pin", action="store_true",
                        help="let the scheduler place every process (default: every client and server on the second CPU "
                             "this process may use, with taskset, so every row and floor pays the same context "
                             "switches and no wake-up of another core; unpinned with fewer than two CPUs or no "
                             "taskset)")
    add_server_args(parser)
    add_output_flags(parser, "rtt", plot=True)
    args = parser.parse_args(argv)
    if args.count is None:
        args.count = QUICK_COUNT if args.quick else DEFAULT_COUNT
    if args.repetitions is None:
        args.repetitions = QUICK_REPETITIONS if args.quick else DEFAULT_REPETITIONS
    if args.warm_up is None:
        args.warm_up = QUICK_WARM_UP if args.quick else DEFAULT_WARM_UP
    if args.count < 1:
        parser.error(f"--count must be at least 1, got {args.count}")
    if args.repetitions < 1:
        parser.error(f"--repetitions must be at least 1, got {args.repetitions}")
    if args.warm_up < 0:
        parser.error(f"--warm-up must be 0 or more, got {args.warm_up}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    settings = Settings(
        count=args.count,
        repetitions=args.repetitions,
        warm_up=args.warm_up,
        scenes=args.scenes,
        transports=args.transports,
        clients=args.clients,
        receive_modes=args.receive_modes,
        peers=tuple(dict.fromkeys(args.peer)),
        server_args=tuple(shlex.split(args.server_args)),
        quick=args.quick,
        pin=not args.no_pin,
    )
    try:
        if not args.no_plot:
            plots.require_matplotlib()  # before minutes of measuring, not after
        versions = {PCLICK: pclick_version()} if PCLICK in settings.peers else {}
        log.info("perf.rtt: %d rows, %d round trips a slice (after %d of warm-up), %d slices", len(settings.row_specs()),
                 settings.count, settings.warm_up, settings.repetitions)
        with tempfile.TemporaryDirectory(prefix="coupler-perf-") as workdir:
            measured = measure(settings, Path(workdir))
        result = to_result(settings, measured, versions)
        markdown = rtt_render.render(result)
        written = results.write(args.out, "rtt", result, markdown)
        if not args.no_plot:
            floors = [measured.floors[which] for which in measured.floor_of]
            written.append(plots.rtt_plot(measured.rows, floors, args.out / "rtt.png"))
    except BenchmarkError as error:
        log.error("perf.rtt: %s", error)
        return 1
    print(markdown)
    print()
    print(targets.render(targets.evaluate(result, None)))
    log.info("perf.rtt: wrote %s in %.0f s", ", ".join(str(path) for path in written), measured.seconds)
    return 0
