"""The Python counterpart of `democlient --timings-file` for perf.rtt: the
same session, the same pick approach on an arm scene, then --range more
Controls that hold still, each timed around the whole step (send, wait,
decode) and written to a file.

    python -m perf.python_client --addr ADDR --range N --timings-file PATH [--blocking-receive]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from coupler.errors import Error
from coupler.session import Session
from coupler.transport_flags import add_client_flags, client_options
from demo.pick_approach import PickApproach, find_arm


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.python_client",
        description="Time Control round trips from Python the way democlient --timings-file does from C++.",
    )
    parser.add_argument("--addr", required=True, help="server address: tcp://host:port or ipc://path")
    parser.add_argument("--range", type=int, default=0, metavar="N",
                        help="timed Control round trips after the first, which is timed too (default: 0)")
    parser.add_argument("--timings-file", type=Path, required=True, metavar="PATH",
                        help="where to write each timed round trip, one per line, in microseconds")
    parser.add_argument("--blocking-receive", action="store_true",
                        help="wait for each reply in a blocking receive (default: non-blocking polling that "
                             "sleeps in zmq_poll between attempts, as the demo controllers do)")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                        help="give up when the server does not answer within this time (default: 5)")
    add_client_flags(parser)
    args = parser.parse_args(argv)
    if args.range < 0:
        parser.error(f"--range must be 0 or more, got {args.range}")
    if args.timeout <= 0:
        parser.error(f"--timeout must be positive, got {args.timeout}")
    return args


def run(args: argparse.Namespace) -> None:
    # Opened first, so a path that cannot be written fails before any work is done.
    with open(args.timings_file, "w") as timings_file:
        with Session(args.addr, timeout=args.timeout, polling=not args.blocking_receive,
                     **client_options(args)) as session:
            controls = session.controls()
            arm = find_arm(session.handshake)
            if arm is not None:
                PickApproach(session, arm).run(controls)
            step_times = []
            started = time.perf_counter()
            for _ in range(args.range + 1):
                step_start = time.perf_counter()
                session.step(controls)
                step_times.append(time.perf_counter() - step_start)
            total = time.perf_counter() - started
        timings_file.writelines(f"{seconds * 1e6:.3f}\n" for seconds in step_times)
    print(f"round trips:             {len(step_times)}")
    print(f"round trips per second:  {len(step_times) / total:.1f}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        run(args)
    except (Error, OSError) as error:
        print(f"perf.python_client: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
