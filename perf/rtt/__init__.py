"""Round-trip time of Control -> Sensor, for every client x transport x
receive mode against the demo server's scenes (and, with --peer pclick,
Click's demo server), each set against a plain ZeroMQ ping-pong of the same
frame sizes measured in the same run, in rounds that alternate with the row's.

    python -m perf.rtt                  # 2000 round trips a row in 5 rounds, scenes static and arm
    python -m perf.rtt --quick          # a few hundred in 2 rounds, for CI
    python -m perf.rtt --peer pclick --count 10000
"""

from __future__ import annotations

import argparse
import logging
import shlex
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from itertools import product
from pathlib import Path
from typing import Any

from perf.common import host
from perf.common import plots
from perf.common import results
from perf.common import targets
from perf.common.endpoints import CURVE_TRANSPORT, TRANSPORT_CHOICES
from perf.common.errors import BenchmarkError
from perf.common.arguments import add_common_flags, list_of
from perf.rtt.measure import (
    CLIENTS,
    COUPLER,
    PCLICK,
    PCLICK_SCENE,
    RECEIVE_MODES,
    Floor,
    Row,
    RowSpec,
    measure_floor,
    measure_row,
    pclick_version,
)
from perf.rtt import render as rtt_render
from perf.rtt.rounds import pool_floors, pool_rows, round_counts
from perf.common.step_cost import step_cost_us

log = logging.getLogger("perf.rtt")

DEFAULT_COUNT = 2000
QUICK_COUNT = 300
DEFAULT_ROUNDS = 5
QUICK_ROUNDS = 2
DEFAULT_SCENES = ("static", "arm")


@dataclass(frozen=True)
class Settings:
    count: int = DEFAULT_COUNT  # round trips a row, and as many for its floor, over all rounds
    rounds: int = DEFAULT_ROUNDS
    scenes: tuple[str, ...] = DEFAULT_SCENES
    transports: tuple[str, ...] = TRANSPORT_CHOICES
    clients: tuple[str, ...] = CLIENTS
    receive_modes: tuple[str, ...] = RECEIVE_MODES
    peers: tuple[str, ...] = ()  # servers measured besides coupler's: PCLICK
    server_args: tuple[str, ...] = ()  # extra flags for demo.server
    quick: bool = False

    def row_specs(self) -> list[RowSpec]:
        """Every client x transport x receive mode for every server; with `quick`, a covering subset."""
        servers = [(COUPLER, scene) for scene in self.scenes] + [(peer, PCLICK_SCENE) for peer in self.peers]
        full = [
            RowSpec(peer, scene, client, transport, receive)
            for (peer, scene), client, transport, receive in product(
                servers, self.clients, self.transports, self.receive_modes
            )
            if _servable(peer, transport)
        ]
        if not self.quick:
            return full
        # The rows the targets are judged on (perf.common.targets), then one row of each other receive mode
        # for every client and transport, taking the servers in turn, so every code path runs.
        chosen = [spec for spec in full if targets.judged_on(spec.peer, spec.scene, spec.client, spec.transport,
                                                             spec.receive)]
        pairs = list(product(self.clients, self.transports))
        for receive in self.receive_modes:
            if receive == "blocking":
                continue
            for index, (client, transport) in enumerate(pairs):
                peer, scene = servers[index % len(servers)]
                if not _servable(peer, transport):
                    peer, scene = servers[0]
                chosen.append(RowSpec(peer, scene, client, transport, receive))
        return list(dict.fromkeys(chosen)) or full[:1]


def _servable(peer: str, transport: str) -> bool:
    return peer == COUPLER or transport != CURVE_TRANSPORT  # Click's server has no CURVE


@dataclass
class Measurements:
    rows: list[Row]
    floors: list[Floor]  # floors[i] is rows[i]'s, measured in rounds alternating with its rounds
    step_costs_us: dict[str, float | None]  # one mj_step of each coupler scene alone; None without physics
    seconds: float


def measure(settings: Settings, workdir: Path) -> Measurements:
    """Every row of the settings with its floor, the ping-pong of the row's language, transport and frame
    sizes: in rounds, each a fresh server and client for its share of the round trips, then the floor's
    share, so the swings of a shared machine's load fall on both sides of a ratio alike."""
    started = time.monotonic()
    specs = settings.row_specs()
    shares = round_counts(settings.count, settings.rounds)
    rows, floors = [], []
    for index, spec in enumerate(specs, 1):
        row_rounds, floor_rounds = [], []
        for round_number, share in enumerate(shares, 1):
            row_rounds.append(measure_row(spec, share, workdir, list(settings.server_args)))
            # Every round's floor of the first round's sizes, so the floor's rounds pool into one.
            floor_rounds.append(measure_floor(row_rounds[0].floor_spec(), share, workdir))
            log.info("[%d/%d round %d/%d] %-48s p50 %8.1f us (floor %6.1f)", index, len(specs), round_number,
                     len(shares), spec.label(), row_rounds[-1].latency.p50, floor_rounds[-1].latency.p50)
        row, floor = pool_rows(row_rounds), pool_floors(floor_rounds)
        log.info("[%d/%d] %-48s p50 %8.1f us (floor %6.1f)  p99 %8.1f us  %6d/%d bytes", index, len(specs),
                 spec.label(), row.latency.p50, floor.latency.p50, row.latency.p99, row.request_bytes,
                 row.reply_bytes)
        rows.append(row)
        floors.append(floor)
    step_costs = {}
    for scene in settings.scenes:
        step_costs[scene] = step_cost_us(scene)
        if step_costs[scene] is not None:
            log.info("[step] %-47s %8.1f us a step alone", scene, step_costs[scene])
    return Measurements(rows, floors, step_costs, time.monotonic() - started)


def to_result(settings: Settings, measured: Measurements, peer_versions: dict[str, str]) -> dict[str, Any]:
    """The JSON document: settings, host, every row with its ratio to its floor, every floor."""
    rows = []
    for row, floor in zip(measured.rows, measured.floors):
        rows.append({
            **asdict(row.spec),
            "latency_us": asdict(row.latency),
            "round_trips_per_second": row.round_trips_per_second,
            "request_bytes": row.request_bytes,
            "reply_bytes": row.reply_bytes,
            "server_cpu_us_per_round_trip": row.server_cpu_us_per_round_trip,
            "server_round_trips": row.server_round_trips,
            "server_idle_cpu_percent": row.server_idle_cpu_percent,
            "floor": asdict(floor.spec),
            "vs_floor": {
                "p50": row.latency.p50 / floor.latency.p50,
                "p99": row.latency.p99 / floor.latency.p99,
            },
        })
    floors = [
        {**asdict(floor.spec), "latency_us": asdict(floor.latency),
         "round_trips_per_second": floor.round_trips_per_second}
        for floor in measured.floors
    ]
    return {
        "benchmark": "rtt",
        "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
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
        description="Measure Control -> Sensor round trips for every client x transport x receive mode against "
        "the demo server, and plain ZeroMQ REQ/REP ping-pongs of the same frame sizes as floors, row and floor "
        "taking turns over a number of rounds (one fresh server per round). "
        "Writes rtt.json, rtt.md and rtt.png; prints the tables on stdout and a line per "
        "row on stderr. Exits 1 when a process fails, never because of a timing figure.",
    )
    parser.add_argument("--count", type=int, default=None,
                        help=f"timed round trips per row and per floor, over all rounds (default {DEFAULT_COUNT}, "
                             f"or {QUICK_COUNT} with --quick)")
    parser.add_argument("--rounds", type=int, default=None,
                        help="rounds each row's and floor's round trips are split into; each round runs a fresh "
                             "server and client for its share, then the floor's share, so both sides meet the "
                             "same swings of the machine's load (default "
                             f"{DEFAULT_ROUNDS}, or {QUICK_ROUNDS} with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help=f"CI run: {QUICK_COUNT} round trips a row in {QUICK_ROUNDS} rounds unless --count or "
                             "--rounds says otherwise, and a subset of the rows: those the targets are judged on "
                             "(blocking receive), and "
                             "each client on every transport in every other receive mode (default: every row)")
    parser.add_argument("--scenes", type=list_of(str), default=",".join(DEFAULT_SCENES), metavar="LIST",
                        help="comma-separated demo.server scenes, names or MJCF paths (default: %(default)s)")
    parser.add_argument("--transports", type=list_of(str, TRANSPORT_CHOICES), default=",".join(TRANSPORT_CHOICES),
                        metavar="LIST",
                        help="comma-separated, of ipc, tcp and tcp-curve: IPC in a temporary directory, TCP on "
                             "127.0.0.1, and TCP with CurveZMQ encryption and authentication (keys made for each "
                             "row; not for Click's server) (default: %(default)s)")
    parser.add_argument("--clients", type=list_of(str, CLIENTS), default=",".join(CLIENTS), metavar="LIST",
                        help="comma-separated, of cpp (build/cpp/bin/democlient, or $COUPLER_DEMOCLIENT) "
                             "and python (python -m demo.client) (default: %(default)s)")
    parser.add_argument("--receive-modes", type=list_of(str, RECEIVE_MODES), default=",".join(RECEIVE_MODES),
                        metavar="LIST",
                        help="comma-separated, of blocking (--blocking-receive) and non-blocking "
                             "(polling, sleeping in zmq_poll) (default: %(default)s)")
    parser.add_argument("--peer", action="append", choices=[PCLICK], default=[],
                        help="also measure the same clients against this server: pclick is Click's reference "
                             "demo server, run from .venv-pclick (or $COUPLER_PCLICK_PYTHON); it spins while "
                             "idle, so its CPU time is not reported (default: coupler's demo server only)")
    add_common_flags(parser, "rtt")
    args = parser.parse_args(argv)
    if args.count is None:
        args.count = QUICK_COUNT if args.quick else DEFAULT_COUNT
    if args.rounds is None:
        args.rounds = QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS
    if args.count < 1:
        parser.error(f"--count must be at least 1, got {args.count}")
    if not 1 <= args.rounds <= args.count:
        parser.error(f"--rounds must be from 1 to --count ({args.count}), got {args.rounds}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    settings = Settings(
        count=args.count,
        rounds=args.rounds,
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
        log.info("perf.rtt: %d rows of %d round trips in %d rounds", len(settings.row_specs()), settings.count,
                 settings.rounds)
        with tempfile.TemporaryDirectory(prefix="coupler-perf-") as workdir:
            measured = measure(settings, Path(workdir))
        result = to_result(settings, measured, versions)
        markdown = rtt_render.render(result)
        written = results.write(args.out, "rtt", result, markdown)
        if not args.no_plot:
            written.append(plots.rtt_plot(measured.rows, measured.floors, args.out / "rtt.png"))
    except BenchmarkError as error:
        log.error("perf.rtt: %s", error)
        return 1
    print(markdown)
    log.info("perf.rtt: wrote %s in %.0f s", ", ".join(str(path) for path in written), measured.seconds)
    return 0

