"""The controller perf.soak runs in a process of its own, so the soak can
read its resident memory: the handshake, on an arm scene the demo's pick
approach, then --round-trips Controls that hold still, each reply's
simulated time checked against the one before.

    python -m perf.soak.client --addr ADDR --round-trips N --sample-every K

It prints a line "soak {json}" on stdout (flushed) before the first Control
of the loop, after every K round trips, at least every 2 s, and after the
last: the round trips done, the counts of the check (perf.soak.steps) and its
own resident memory. perf.soak reads the server's whenever a line arrives.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from coupler.wire.errors import Error
from coupler.controller.session import Session
from coupler.scenes.pick_approach import PickApproach, find_arm
from perf.common.arguments import positive
from perf.common.process_stats import rss_kib
from perf.soak.steps import DEFAULT_TOLERANCE, StepCheck

LINE_PREFIX = "soak "
REPORT_SECONDS = 2.0
# Looking at the clock every round trip would cost more than the check itself.
CLOCK_EVERY = 256


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.soak.client",
        description="Run a soak loop of Control round trips that hold still, checking that every reply is "
        "exactly one time step after the one before, and report progress lines for perf.soak.",
    )
    parser.add_argument("--addr", required=True, help="server address: tcp://host:port or ipc://path")
    parser.add_argument("--round-trips", type=positive(int), required=True, metavar="N",
                        help="Control round trips in the soak loop, after the handshake and pick approach")
    parser.add_argument("--sample-every", type=positive(int), required=True, metavar="K",
                        help="print a progress line after every K round trips (and at least every "
                             f"{REPORT_SECONDS:.0f} s)")
    parser.add_argument("--tolerance", type=positive(float), default=DEFAULT_TOLERANCE, metavar="FRACTION",
                        help="how far, as a fraction of the time step, a reply's time may be from one step after "
                             "the one before (default: %(default)g)")
    parser.add_argument("--timeout", type=positive(float), default=5.0, metavar="SECONDS",
                        help="give up when the server does not answer within this time (default: %(default)g)")
    return parser.parse_args(argv)


def report(check: StepCheck) -> None:
    # Its own memory, read at this very round trip: the process may be gone before perf.soak could read it.
    figures = {**check.to_dict(), "rss_kib": rss_kib(os.getpid())}
    print(LINE_PREFIX + json.dumps(figures), flush=True)


def run(args: argparse.Namespace) -> None:
    with Session(args.addr, timeout=args.timeout) as session:
        controls = session.controls()
        arm = find_arm(session.handshake)
        if arm is not None:
            print(PickApproach(session, arm).run(controls).summary(), file=sys.stderr)
        # Where the simulation stands before the loop; a SensorRequest does not step.
        check = StepCheck(session.handshake.time_step, session.sensors().time, args.tolerance)
        report(check)
        step, observe = session.step, check.observe
        next_sample = args.sample_every
        next_clock = time.monotonic() + REPORT_SECONDS
        for done in range(1, args.round_trips + 1):
            observe(step(controls).time)
            if done == next_sample or done == args.round_trips or (
                done % CLOCK_EVERY == 0 and time.monotonic() >= next_clock
            ):
                report(check)
                if done == next_sample:
                    next_sample += args.sample_every
                next_clock = time.monotonic() + REPORT_SECONDS


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        run(args)
    except (Error, OSError) as error:
        print(f"perf.soak.client: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
