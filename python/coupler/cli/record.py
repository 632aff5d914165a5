"""`coupler record`: record a server that publishes (`coupler serve --publish`) into an MCAP file, the same
file `coupler serve --record` writes; for recording a server you did not start.

    coupler record --addr tcp://127.0.0.1:5556 run.mcap
    coupler record --addr tcp://127.0.0.1:5556 run.mcap --duration 60
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from coupler.cli.number_flags import float_in, int_in
from coupler.cli.serve import LOG_TIME_FLAG, LOG_TIME_HELP, LOG_TIMES, MAX_PUBLISH_HWM, PUBLISH_HWM_FLAG
from coupler.cli.transport_flags import add_client_flags, check_connect_address, client_options
from coupler.record.subscriber_socket import DEFAULT_RCVHWM
from coupler.wire.errors import Error
from coupler.wire.missing_extra import needs_extra

if TYPE_CHECKING:
    from coupler.record.stream_recorder import StreamCounts

MAX_DURATION = 1e7  # seconds (about four months)
MAX_MESSAGES = 10**12
MAX_NICE = 19  # the lowest CPU priority Linux has


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--addr", required=True,
                        help="the address the server publishes on (its --publish), e.g. tcp://127.0.0.1:5556")
    parser.add_argument("recording", type=Path,
                        help="the MCAP file to write; written beside it and put in its place once the first frame "
                             "arrives, so a recording that never starts leaves an existing file as it was")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace the recording if it exists (default: off, an existing file is refused)")
    parser.add_argument("--duration", type=float_in(1e-3, MAX_DURATION, unit="s"), default=None, metavar="SECONDS",
                        help="stop after this many seconds (default: until the server stops, or SIGINT/SIGTERM)")
    parser.add_argument("--max-messages", type=int_in(1, MAX_MESSAGES), default=None, metavar="N",
                        help="stop after writing this many messages of the stream (the 3D scene the recording derives "
                             "from them is not counted) (default: no limit)")
    parser.add_argument(PUBLISH_HWM_FLAG, type=int_in(1, MAX_PUBLISH_HWM), default=DEFAULT_RCVHWM, metavar="N",
                        help="messages of the published stream this subscriber's socket holds while the file is being "
                             "written; beyond them the server drops messages for it, counted here from the sequence "
                             "numbers (default: %(default)s)")
    parser.add_argument(LOG_TIME_FLAG, choices=LOG_TIMES, default="wall",
                        help=LOG_TIME_HELP.format(file="the recording") + " (default: %(default)s)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress line every second on stderr, only the summary (default: off)")
    # Plumbing of `coupler serve --record`, which runs its writer as a process of its own: not for people.
    # --nice lowers the writer's CPU priority, so that beside the server it takes the time the server and its
    # controllers leave; --stop-on-stdin-eof ties it to the server, so a killed server still leaves a finished file.
    parser.add_argument("--nice", type=int_in(0, MAX_NICE), default=0, metavar="N", help=argparse.SUPPRESS)
    parser.add_argument("--stop-on-stdin-eof", action="store_true", help=argparse.SUPPRESS)
    # With it the recording is put in place when standard input says so (the server serves), not at the first frame.
    parser.add_argument("--place-when-told", action="store_true", help=argparse.SUPPRESS)
    add_client_flags(parser, answered=False)


def _lower_priority(nice: int) -> None:
    """Lower this process's CPU priority by `nice`, before any thread starts (threads take their creator's)."""
    os.nice(nice)
    # Linux schedules each session's processes as one group ("autogroup") against other sessions, so a
    # process's own nice only counts within its session. A recorder leading a session of its own (as
    # `coupler serve --record` starts it) lowers its group's priority too; one sharing a terminal's session
    # must not, since that would lower everything started from the terminal.
    if os.getsid(0) == os.getpid():
        try:
            with open("/proc/self/autogroup", "w") as group:
                group.write(str(nice))
        except OSError:
            pass  # no autogroups here: the process's nice is all there is


def _progress(counts: StreamCounts, seconds: float) -> None:
    rate = counts.written / seconds if seconds > 0 else 0.0
    print(f"\rrecording: {counts.written} messages, {counts.bytes / 1e6:.1f} MB, {rate:.0f}/s, {counts.lost} lost",
          end="", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(levelname)s: %(message)s")
    if args.nice:
        _lower_priority(args.nice)
    check_connect_address(args.addr)
    with needs_extra("coupler record", "record"):
        from coupler.record.frame_stream import StreamError
        from coupler.record.stream_recorder import StopWhen, StreamRecorder
    transport = client_options(args)
    # A file size limit (ulimit -f) ends writing with EFBIG, counted as a failed write, not the process.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    try:
        recorder = StreamRecorder(args.addr, args.recording, transport, args.publish_hwm,
                                  overwrite=args.overwrite, place_when_told=args.place_when_told,
                                  log_time=args.log_time)
    except StreamError as error:
        raise Error(str(error)) from None
    try:
        when = StopWhen(duration=args.duration, frames=args.max_messages, stop=stop,
                        eof_fd=sys.stdin.fileno() if args.stop_on_stdin_eof else None)
        counts = recorder.run(when, progress=None if args.quiet else _progress,
                              receiving=None if args.quiet else lambda: print(
                                  f"receiving from {args.addr[:200]}", file=sys.stderr, flush=True))
        if not args.quiet:
            print(file=sys.stderr)
    finally:
        recorder.close()
    print(recorder.summary(), flush=True)
    if recorder.placed and not counts.ended and not args.quiet:
        print("the server had not stopped: the recording ends where recording stopped", file=sys.stderr)
    return 0 if recorder.failed is None and recorder.placed else 1
