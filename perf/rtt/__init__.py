"""Round-trip time of Control -> Sensor, for every client and transport
against coupler's demo server on its scenes, a minimal C++ ROUTER server
answering frames recorded from it and (with --peer pclick) Click's demo
server, each set against a plain ZeroMQ REQ/REP ping-pong of the same frame
sizes and the same client language. Every row and floor is measured once per
repetition, in turn, and reported as the median over the repetitions with
the lowest and highest, with both processes' CPU time per round trip.

    python -m perf.rtt --peer pclick    # 20,000 round trips a measurement, 3 repetitions (about 10 minutes)
    python -m perf.rtt --quick          # 500 round trips, one repetition, the rows the targets need, for CI
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
from perf.common import plots
from perf.common import results
from perf.common import targets
from perf.common.endpoints import CURVE_TRANSPORT, TRANSPORT_CHOICES, floor_transport
from perf.common.errors import BenchmarkError
from perf.common.arguments import add_common_flags, list_of
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
    measure_floor,
    measure_row,
    pclick_version,
)
from perf.rtt import render as rtt_render
from perf.rtt.recording import record
from perf.common.spread import Spread
from perf.rtt.repetitions import Measured
from perf.common.step_cost import step_cost_us

log = logging.getLogger("perf.rtt")

DEFAULT_COUNT = 20000
QUICK_COUNT = 500
DEFAULT_REPETITIONS = 3
QUICK_REPETITIONS = 1
DEFAULT_WARM_UP = 1000
QUICK_WARM_UP = 50
DEFAULT_SCENES = ("static", "arm")


@dataclass(frozen=True)
class Settings:
    count: int = DEFAULT_COUNT  # timed round trips of every row and floor in every repetition
    repetitions: int = DEFAULT_REPETITIONS
    warm_up: int = DEFAULT_WARM_UP  # round trips before the timed ones, left out of the figures
    scenes: tuple[str, ...] = DEFAULT_SCENES
    transports: tuple[str, ...] = TRANSPORT_CHOICES
    clients: tuple[str, ...] = CLIENTS
    receive_modes: tuple[str, ...] = RECEIVE_MODES  # of coupler's rows on the first scene; all others block
    peers: tuple[str, ...] = ()  # servers measured besides coupler's and the recorded one: PCLICK
    server_args: tuple[str, ...] = ()  # extra flags for demo.server
    quick: bool = False

    def row_specs(self) -> list[RowSpec]:
        """Every row, those sharing a floor next to each other. Blocking receive everywhere; the other
        receive modes on coupler's first scene; tcp-curve on coupler's first scene only (the CURVE cost);
        the recorded server serves the frames of the static scene. With `quick`, a covering subset."""
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
        # The rows the targets are judged on, then for every client and transport one coupler row in the
        # last receive mode, so every code path runs.
        chosen = [spec for spec in specs if targets.judged_on(spec.peer, spec.scene, spec.client, spec.transport,
                                                              spec.receive)]
        for client, transport in product(self.clients, self.transports):
            row = [spec for spec in specs if (spec.peer, spec.client, spec.transport) == (COUPLER, client, transport)]
            if row:
                chosen.append(row[-1] if transport != CURVE_TRANSPORT else row[0])
        chosen = set(chosen)
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


def measure(settings: Settings, workdir: Path) -> Measurements:
    """Every row of the settings and every floor they need, one repetition after another: in each, the rows
    in order, each floor right after the first row that needs it, so the swings of a shared machine's load
    fall on rows and floors alike."""
    started = time.monotonic()
    specs = settings.row_specs()
    recording = None
    if any(spec.peer == RECORDED for spec in specs):
        recording = record(RECORDED_SCENE, workdir, list(settings.server_args))
        log.info("[recorded] %s scene: Control %d bytes, Sensor %d bytes", RECORDED_SCENE, recording.control_bytes,
                 recording.sensor_bytes)
    row_runs: list[list] = [[] for _ in specs]
    floor_specs: list[FloorSpec] = []
    floor_runs: list[list] = []
    floor_of: list[int] = []
    total = len(specs) * settings.repetitions
    done = 0
    for repetition in range(1, settings.repetitions + 1):
        measured_now: set[int] = set()
        for index, spec in enumerate(specs):
            run = measure_row(spec, settings.count, settings.warm_up, workdir, list(settings.server_args), recording)
            row_runs[index].append(run)
            done += 1
            if repetition == 1:
                floor = _floor_spec(spec, (run.request_bytes, run.reply_bytes))
                if floor not in floor_specs:
                    floor_specs.append(floor)
                    floor_runs.append([])
                floor_of.append(floor_specs.index(floor))
            which = floor_of[index]
            floor_note = ""
            if which not in measured_now:
                floor_runs[which].append(measure_floor(floor_specs[which], settings.count, settings.warm_up, workdir))
                measured_now.add(which)
                floor_note = f"  floor p50 {floor_runs[which][-1].p50:6.1f} us"
            cpu = "      -" if run.server_cpu_us is None else f"{run.server_cpu_us:7.1f}"
            log.info("[%3d/%d rep %d] %-44s p50 %7.1f us  server CPU %s us/rt  client CPU %6.1f us/rt%s  (%.0f s)",
                     done, total, repetition, spec.label(), run.p50, cpu, run.client_cpu_us, floor_note,
                     time.monotonic() - started)
    rows = [Measured(spec, runs) for spec, runs in zip(specs, row_runs)]
    floors = [Measured(spec, runs) for spec, runs in zip(floor_specs, floor_runs)]
    step_costs = {}
    for scene in settings.scenes:
        step_costs[scene] = step_cost_us(scene)
        if step_costs[scene] is not None:
            log.info("[step] %-47s %8.1f us a step alone", scene, step_costs[scene])
    return Measurements(rows, floors, floor_of, step_costs, time.monotonic() - started)


def _spread(spread: Spread | None) -> dict[str, float] | None:
    return None if spread is None else asdict(spread)


def _ratio(ours: Spread | None, theirs: Spread | None) -> float | None:
    if ours is None or theirs is None or theirs.median <= 0:
        return None
    return ours.median / theirs.median


def _figures(measured: Measured) -> dict[str, Any]:
    request_bytes, reply_bytes = measured.frame_bytes
    return {
        "repetitions": len(measured.runs),
        "p50_us": _spread(measured.p50),
        "latency_us": asdict(measured.latency),
        "round_trips_per_second": _spread(measured.round_trips_per_second),
        "request_bytes": request_bytes,
        "reply_bytes": reply_bytes,
        "server_cpu_us_per_round_trip": _spread(measured.server_cpu_us),
        "client_cpu_us_per_round_trip": _spread(measured.client_cpu_us),
    }


def _recorded_row(measured: Measurements, spec: RowSpec) -> Measured | None:
    """The recorded server's row a coupler static row is set against: same client, transport and frames."""
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
            "vs_floor": {"p50": _ratio(row.p50, floor.p50),
                         "server_cpu": _ratio(row.server_cpu_us, floor.server_cpu_us),
                         "client_cpu": _ratio(row.client_cpu_us, floor.client_cpu_us)},
            "vs_recorded": None if recorded is None else {
                "p50": _ratio(row.p50, recorded.p50),
                "server_cpu": _ratio(row.server_cpu_us, recorded.server_cpu_us),
                "client_cpu": _ratio(row.client_cpu_us, recorded.client_cpu_us)},
        })
    floors = [{**asdict(floor.spec), **_figures(floor)} for floor in measured.floors]
    return {
        "benchmark": "rtt",
        "measured_at": results.measured_now(),
        "duration_s": measured.seconds,
        "host": host.describe(),
        "settings": {**asdict(settings), "peer_versions": peer_versions},
        "rows": rows,
        "floors": floors,
        "step_cost_us": measured.step_costs_us,
    }


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.rtt",
        description="Measure Control -> Sensor round trips of the C++ and Python clients against coupler's demo "
        "server, a minimal C++ ROUTER server answering frames recorded from it, and (with --peer pclick) Click's "
        "demo server, and plain ZeroMQ REQ/REP ping-pongs of the same frame sizes as floors. Every row and floor "
        "is measured once per repetition, in turn; figures are medians over the repetitions with the lowest and "
        "highest, with the client's and the server's CPU time per round trip. Writes rtt.json, rtt.md and "
        "rtt.png; prints the tables and the targets on stdout and a line per measurement on stderr. Exits 1 when "
        "a process fails, never because of a timing figure.",
    )
    parser.add_argument("--count", type=int, default=None,
                        help=f"timed round trips of every row and floor in every repetition (default {DEFAULT_COUNT}, "
                             f"or {QUICK_COUNT} with --quick)")
    parser.add_argument("--repetitions", type=int, default=None,
                        help="times every row and floor is measured, each time with a fresh server and client "
                             f"(default {DEFAULT_REPETITIONS}, or {QUICK_REPETITIONS} with --quick)")
    parser.add_argument("--warm-up", type=int, default=None,
                        help="round trips every client makes before the timed ones, left out of the latency "
                             f"(default {DEFAULT_WARM_UP}, or {QUICK_WARM_UP} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"CI run: {QUICK_COUNT} round trips in {QUICK_REPETITIONS} repetition unless "
                             "--count or --repetitions says otherwise, and a subset of the rows: those the "
                             "targets are judged on, and one coupler row of every client and transport "
                             "(default: every row)")
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
    add_common_flags(parser, "rtt")
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
    )
    try:
        if not args.no_plot:
            plots.require_matplotlib()  # before minutes of measuring, not after
        versions = {PCLICK: pclick_version()} if PCLICK in settings.peers else {}
        log.info("perf.rtt: %d rows of %d round trips (after %d of warm-up), %d repetitions", len(settings.row_specs()),
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
