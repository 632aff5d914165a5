"""Where Session.step's own time goes: each part of a step timed on its own,
against the minimal ROUTER server answering recorded static-scene frames,
beside plain pyzmq send/recv of the same frames on a REQ socket of its own.

    python -m perf.step_profile                # 20,000 steps a part, 3 repetitions
    python -m perf.step_profile --quick

A step is: encode the Controls (`Controls.frame`), send, receive, read the
Sensor into an array (the native SensorLayout), wrap it as SensorReadings,
and count the round trip in the session's statistics. The parts are timed
with perf_counter in one loop; "whole step" and "plain send + recv" are
timed in loops of their own.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import zmq

from coupler.controller.sensor_readings import SensorReadings
from coupler.controller.session import Session
from coupler.wire.errors import Error
from coupler.wire.flat_layout import FlatLayout
from perf.common import programs
from perf.common.endpoints import address_for
from perf.common.errors import BenchmarkError
from perf.common.markdown import number, table
from perf.common.processes import ServerProcess
from perf.rtt.recording import record

log = logging.getLogger("perf.step_profile")

PARTS = ("Controls.frame", "send", "receive", "SensorLayout.read", "SensorReadings.from_array", "stats")
WARM_UP = 500


def _one_repetition(session: Session, socket: zmq.Socket, count: int) -> dict[str, float]:
    """µs per round trip of each part, the whole step, and plain send + recv on `socket`, in one repetition."""
    controls = session.controls()
    try:
        flat = FlatLayout(session.handshake)
    except Error:
        flat = None
    if flat is None:
        raise BenchmarkError("the static scene has no flat layout: Session.step goes through messages")
    client, clock = session.client, time.perf_counter
    frame = controls.frame()
    started = clock()
    for _ in range(count):
        socket.send(frame)
        socket.recv()
    plain = (clock() - started) / count
    started = clock()
    for _ in range(count):
        session.step(controls)
    whole = (clock() - started) / count
    parts = np.zeros(len(PARTS))
    for _ in range(count):
        a = clock()
        request = controls.frame()
        b = clock()
        client.send_frame(request)
        c = clock()
        answer = client.receive_frame()
        d = clock()
        read = flat.sensors.read(answer)
        e = clock()
        SensorReadings.from_array(session.handshake, flat, *read)
        f = clock()
        session.stats.add_round_trip(f - a)
        g = clock()
        parts += (b - a, c - b, d - c, e - d, f - e, g - f)
    figures = dict(zip(PARTS, parts / count * 1e6))
    figures["whole step"] = whole * 1e6
    figures["plain send + recv"] = plain * 1e6
    return figures


def measure(count: int, repetitions: int, workdir: Path) -> dict[str, list[float]]:
    recording = record("static", workdir, [])
    address = address_for("ipc", workdir)
    command = [str(programs.recorded_server()), "--addr", address, *recording.flags()]
    figures: dict[str, list[float]] = {}
    with ServerProcess(command, workdir / "recorded.log", handshake_address=address):
        with Session(address) as session, zmq.Context.instance().socket(zmq.REQ) as socket:
            socket.connect(address)
            controls = session.controls()
            for _ in range(WARM_UP):
                session.step(controls)
                socket.send(controls.frame())
                socket.recv()
            for repetition in range(1, repetitions + 1):
                for name, value in _one_repetition(session, socket, count).items():
                    figures.setdefault(name, []).append(value)
                log.info("[rep %d/%d] whole step %.1f us, plain send + recv %.1f us", repetition, repetitions,
                         figures["whole step"][-1], figures["plain send + recv"][-1])
    return figures


def render(figures: dict[str, list[float]], count: int) -> str:
    cells = [[name, number(float(np.median(values))), number(min(values)), number(max(values))]
             for name, values in figures.items()]
    own = float(np.median(figures["whole step"]) - np.median(figures["plain send + recv"]))
    return "\n".join([
        "## Session.step, part by part",
        "",
        f"{count:,} steps a repetition against the minimal ROUTER server (recorded static-scene frames), ipc, "
        f"blocking receive; µs per step, median (lowest, highest) of {len(figures['whole step'])} repetitions.",
        "",
        table(["part", "median µs", "lowest", "highest"], cells, [False, True, True, True]),
        "",
        f"Session.step's own cost, whole step minus plain send + recv: {own:.1f} µs.",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perf.step_profile",
        description="Time each part of the Python client's Session.step against the minimal ROUTER server "
        "(perf/floor/recorded_server, frames recorded from the static scene), beside plain pyzmq send/recv of "
        "the same frames. Prints a table; exits 1 when a process fails, never because of a figure.")
    parser.add_argument("--count", type=int, default=None,
                        help="steps a repetition, for each loop (default 20000, or 1000 with --quick)")
    parser.add_argument("--repetitions", type=int, default=3, help="repetitions (default: %(default)s)")
    parser.add_argument("--quick", action="store_true", help="CI run: 1000 steps a repetition")
    args = parser.parse_args(argv)
    count = args.count or (1000 if args.quick else 20000)
    if count < 1 or args.repetitions < 1:
        parser.error("--count and --repetitions must be at least 1")
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    try:
        with tempfile.TemporaryDirectory(prefix="coupler-perf-") as workdir:
            figures = measure(count, args.repetitions, Path(workdir))
    except BenchmarkError as error:
        log.error("perf.step_profile: %s", error)
        return 1
    print(render(figures, count))
    return 0
