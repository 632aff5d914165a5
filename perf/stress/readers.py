"""Clients that only read, as fast as they are answered: perf.stress runs them
in a process of their own (so they do not share its interpreter lock) while
its controller drives.

    python -m perf.stress.readers --addr ADDR --readers 30 --seconds 1 --quiet 1 --windows 5

Each reader is a thread with its own connection sending SensorRequest after
SensorRequest, for --seconds; then all are quiet for --quiet seconds, and so
on for --windows windows, so that perf.stress can set the controller's step
rate under the readers against its rate without them, window by window. It
prints a line "readers {json}" (flushed) as each window of reading starts
({"reading": true}) and ends (the reads answered, the timeouts and the
longest wait for an answer, in seconds), and "readers {"reading": false}"
as it goes quiet and at the end of the quiet.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from coupler.transport.client import Client
from coupler.wire.errors import Error
from coupler.wire.messages import Message, SensorMessage, SensorRequestMessage
from perf.common.arguments import positive

LINE_PREFIX = "readers "


@dataclass
class Answers:
    """How one kind of request fared: answered as expected, timed out, answered otherwise; the longest wait (s)."""

    answered: int = 0
    timeouts: int = 0
    wrong_answers: int = 0
    longest: float = 0.0

    def merge(self, other: Answers) -> None:
        self.answered += other.answered
        self.timeouts += other.timeouts
        self.wrong_answers += other.wrong_answers
        self.longest = max(self.longest, other.longest)


def ask_until(address: str, request: Message, right: Callable[[Message], bool], done: Callable[[], bool],
              timeout: float, answers: Answers, pause: float = 0.0) -> None:
    """Send `request` on one connection, again and again until `done()`, counting into `answers`.

    An answer is expected within `timeout` seconds and `right(answer)`;
    `pause` seconds pass between an answer and the next request.
    """
    with Client(address, timeout=timeout) as client:
        while not done():
            sent = time.perf_counter()
            try:
                answer = client.request(request)
            except Error:
                answers.timeouts += 1
                answers.longest = max(answers.longest, time.perf_counter() - sent)
                client.reconnect()
                continue
            answers.longest = max(answers.longest, time.perf_counter() - sent)
            if right(answer):
                answers.answered += 1
            else:
                answers.wrong_answers += 1
            if pause:
                time.sleep(pause)


def is_state(answer: Message) -> bool:
    return isinstance(answer, SensorMessage)


def read_in_threads(address: str, readers: int, seconds: float, timeout: float) -> Answers:
    """`readers` threads reading for `seconds`; their counts together."""
    deadline = time.monotonic() + seconds
    each = [Answers() for _ in range(readers)]
    threads = [threading.Thread(target=ask_until, daemon=True, args=(
        address, SensorRequestMessage(), is_state, lambda: time.monotonic() >= deadline, timeout, answers))
        for answers in each]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=seconds + timeout + 10)
    total = Answers()
    for stats in each:
        total.merge(stats)
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m perf.stress.readers",
        description="Read a server's state from many connections at once for a while and report how they fared.",
    )
    parser.add_argument("--addr", required=True, help="server address: tcp://host:port or ipc://path")
    parser.add_argument("--readers", type=positive(int), default=30, metavar="N",
                        help="reader connections, one thread each (default: %(default)s)")
    parser.add_argument("--seconds", type=positive(float), default=5.0, metavar="S",
                        help="how long they read (default: %(default)g)")
    parser.add_argument("--quiet", type=positive(float), default=1.0, metavar="S",
                        help="how long they pause after each window of reading (default: %(default)g)")
    parser.add_argument("--windows", type=positive(int), default=1, metavar="N",
                        help="windows of reading, each followed by a quiet one (default: %(default)s)")
    parser.add_argument("--timeout", type=positive(float), default=0.5, metavar="SECONDS",
                        help="a read not answered within this time counts as a timeout (default: %(default)g)")
    args = parser.parse_args(argv)
    for _ in range(args.windows):
        print(LINE_PREFIX + json.dumps({"reading": True}), flush=True)
        stats = read_in_threads(args.addr, args.readers, args.seconds, args.timeout)
        print(LINE_PREFIX + json.dumps({"reading": False, **stats.__dict__}), flush=True)
        time.sleep(args.quiet)
        print(LINE_PREFIX + json.dumps({"reading": False}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
