"""coupler demo controller in Python: the same flags and behaviour as the C++ democlient.

    python -m demo.client                          # pick approach on the arm scene
    python -m demo.client --range 10000 --timings  # plus 10000 hold-still round trips, timed
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

import numpy as np

from coupler import limits
from coupler.wire.errors import Error
from coupler.controller.session import Session
from coupler.cli.transport_flags import add_client_flags, client_options
from coupler.cli.number_flags import int_in
from coupler.scenes.pick_approach import PickApproach, find_arm

DEFAULT_ADDRESS = limits.DEFAULT_ADDRESS


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m demo.client",
        description="Connect to a coupler or Click simulation server, do the handshake, check it, "
        "move an arm above the box and close the gripper (when the scene has one), "
        "then send --range more Control messages.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--addr", default=DEFAULT_ADDRESS, help="server address: tcp://host:port, ipc://path or inproc://name")
    parser.add_argument("--range", type=int_in(0, limits.MAX_RANGE), default=0, metavar="N",
                        help=f"extra Control round trips after the first, at most {limits.MAX_RANGE}")
    parser.add_argument("--timings", action="store_true",
                        help="print time blocked in receive, time between send and reply, total time, "
                             "round trips per second and p50/p99 round-trip time")
    parser.add_argument("--timings-file", type=Path, default=None, metavar="PATH",
                        help="write each --range round trip (the first included) to PATH, one per line, in "
                             "microseconds, timed around the whole step: send, wait, decode; None: not written")
    parser.add_argument("--blocking-receive", action="store_true",
                        help="wait for each reply in a blocking receive (default: non-blocking polling that "
                             "sleeps in zmq_poll between attempts instead of spinning)")
    parser.add_argument("--trace", action="store_true", help="print every message sent and received")
    add_client_flags(parser)
    return parser.parse_args(argv)


def check_handshake(session: Session) -> None:
    """Raise coupler.Error naming the first thing a controller cannot use."""
    from coupler.wire.messages import ValueType

    controllable = {ValueType.ANGLE, ValueType.ANGULAR_VELOCITY_1D, ValueType.TORQUE_1D, ValueType.FORCE_1D}
    for name, described in session.handshake.objects.items():
        if len(described.controls) != len(described.control_types):
            raise Error(f"object '{name}' names {len(described.controls)} controls "
                        f"but gives {len(described.control_types)} types")
        for control, value_type in zip(described.controls, described.control_types):
            if value_type not in controllable:
                raise Error(f"control '{control}' of '{name}' has type {value_type.name}, which is not a control type")


def run(args: argparse.Namespace) -> int:
    # Opened first, so a path that cannot be written fails before connecting.
    timings_file = open(args.timings_file, "w") if args.timings_file is not None else None
    try:
        return _run(args, timings_file)
    finally:
        if timings_file is not None:
            timings_file.close()


def _run(args: argparse.Namespace, timings_file: TextIO | None) -> int:
    print(f"connecting to {args.addr}")
    trace = (lambda direction, message: print(f"{direction}: {message!r}")) if args.trace else None
    polling = not args.blocking_receive
    transport = client_options(args).client_keywords()
    with Session(args.addr, timeout=args.timeout, polling=polling, trace=trace, **transport) as session:
        check_handshake(session)
        handshake = session.handshake
        print(f"handshake: {len(handshake.objects)} objects, time step {handshake.time_step} s")
        controls = session.controls()

        arm = find_arm(handshake)
        if arm is not None:
            report = PickApproach(session, arm).run(controls)
            print(report.summary())

        session.stats.clear()  # timings cover the round trips below only
        step_times = [] if timings_file is not None else None
        started = time.perf_counter()
        cpu_started = time.process_time()  # all threads of the process, pyzmq's I/O thread too
        readings = None
        for _ in range(args.range + 1):
            if step_times is None:
                readings = session.step(controls)
            else:
                step_start = time.perf_counter()
                readings = session.step(controls)
                step_times.append(time.perf_counter() - step_start)
        total = time.perf_counter() - started
        cpu_per_step = (time.process_time() - cpu_started) / (args.range + 1)
        print(f"controls sent: {args.range + 1}, simulated time: {readings.time:.4f} s")
        if args.timings:
            print(session.stats.report(total, polling))
            print(f"client CPU per round trip: {cpu_per_step * 1e6:.1f} us")
    if timings_file is not None:
        timings_file.writelines(f"{seconds * 1e6:.3f}\n" for seconds in step_times)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    np.set_printoptions(precision=4, suppress=True)
    try:
        return run(args)
    except (Error, OSError) as error:
        print(f"demo.client: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
