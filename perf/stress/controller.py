"""The controller perf.stress runs in a process of its own: it drives the
simulation in lockstep, one step per Control, checking each reply's simulated
time against the one before, until a line "stop" (or the end) on its stdin;
then it says goodbye and exits.

    python -m perf.stress.controller --addr ADDR

It prints a line "controller {json}" on stdout (flushed) about every
--report-every seconds and once more at the end: the round trips done, the
counts of the step check (perf.soak.steps), and the longest and the median
round trip since the line before. perf.stress times the lines as they arrive and takes the
step rate of each phase from them.
"""

from __future__ import annotations

import argparse
import json
import select
import statistics
import sys
import time

from coupler.controller.session import Session
from coupler.wire.errors import Error
from perf.common.arguments import positive
from perf.soak.steps import StepCheck

LINE_PREFIX = "controller "
# Looking at stdin and the clock every round trip would cost more than the round trip.
LOOK_EVERY = 8


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.stress.controller",
        description="Drive a lockstep server one step per Control until 'stop' on stdin, checking that every reply "
        "is exactly one time step after the one before, and report progress lines for perf.stress.",
    )
    parser.add_argument("--addr", required=True, help="server address: tcp://host:port or ipc://path")
    parser.add_argument("--report-every", type=positive(float), default=0.1, metavar="SECONDS",
                        help="print a progress line about this often (default: %(default)g)")
    parser.add_argument("--timeout", type=positive(float), default=5.0, metavar="SECONDS",
                        help="give up when the server does not answer within this time (default: %(default)g)")
    return parser.parse_args(argv)


def report(check: StepCheck, round_trips: list[float], done: bool = False) -> None:
    figures = {**check.to_dict(), "longest_round_trip": max(round_trips, default=0.0),
               "median_round_trip": statistics.median(round_trips) if round_trips else None, "done": done}
    print(LINE_PREFIX + json.dumps(figures), flush=True)


def stop_asked() -> bool:
    ready, _, _ = select.select([sys.stdin], [], [], 0)
    if not ready:
        return False
    line = sys.stdin.readline()
    return line == "" or line.strip() == "stop"


def run(args: argparse.Namespace) -> None:
    with Session(args.addr, timeout=args.timeout) as session:
        controls = session.controls()
        check = StepCheck(session.handshake.time_step, session.sensors().time)
        report(check, [])
        step, observe, clock = session.step, check.observe, time.perf_counter
        round_trips: list[float] = []
        took = round_trips.append
        next_report = clock() + args.report_every
        while True:
            for _ in range(LOOK_EVERY):
                sent = clock()
                observe(step(controls).time)
                took(clock() - sent)
            if clock() >= next_report:
                report(check, round_trips)
                round_trips = []
                took = round_trips.append
                next_report = clock() + args.report_every
                if stop_asked():
                    break
        report(check, round_trips, done=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        run(args)
    except (Error, OSError) as error:
        print(f"perf.stress.controller: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
