"""A subscriber for the benchmarks: follows a publishing server, counts messages, bytes and losses (sequence
gaps) until the server's end message, and writes its counts as JSON.

    python -m perf.record.subscriber ADDRESS --ready FILE --out FILE [--timeout SECONDS]

It behaves as a real subscriber's receiving thread (a recorder's, a
plotter's): woken by a message, it drains its whole queue before it waits
again, reading each message's topic and sequence number; it does not decode
payloads (a plotter would, in another thread or process). It touches the
--ready file once its first message has arrived, so the benchmark knows it
is subscribed before it starts timing.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import zmq

from coupler.record.frame_stream import END_TOPIC, FRAME_PREFIX, HEADER, SCENE_TOPIC, parse_end, topic_of

from perf.common.arguments import positive

DRAIN_AT_MOST = 10_000  # messages read per wake-up before the deadline is looked at again


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m perf.record.subscriber", description=__doc__.split("\n\n")[0])
    parser.add_argument("address", help="the server's --publish address")
    parser.add_argument("--ready", type=Path, required=True, help="file touched once the first message arrived")
    # Not add_output_flags: perf.record names this one file for the child it starts, no results directory.
    parser.add_argument("--out", type=Path, required=True,
                        help="where to write the counts (JSON: received, lost, bytes, seconds from the first to the "
                             "last message, last: time.perf_counter() at the last message, first_sequence)")
    parser.add_argument("--timeout", type=positive(float), default=600.0,
                        help="give up after this many seconds without the end message (default: %(default)s)")
    args = parser.parse_args(argv)
    context = zmq.Context(1)
    socket = context.socket(zmq.SUB)
    socket.setsockopt(zmq.LINGER, 0)
    socket.setsockopt(zmq.SUBSCRIBE, FRAME_PREFIX)
    socket.connect(args.address)
    received = lost = size = first_sequence = 0
    expected: int | None = None
    first = last = 0.0
    ended = False
    deadline = time.monotonic() + args.timeout
    while not ended and time.monotonic() < deadline:
        if not socket.poll(100):
            continue
        # As a recorder or plotter does: once woken, drain everything queued before waiting again, so a burst (a
        # step's Control, state and answer) costs one wake-up, not one each.
        for _ in range(DRAIN_AT_MOST):
            try:
                parts = socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            topic = topic_of(parts)
            if topic == END_TOPIC:
                sent = parse_end(parts)
                lost += max(0, sent - expected) if expected is not None else 0
                ended = True
                break
            if topic == SCENE_TOPIC:
                continue
            # only the sequence number: a subscriber that costs little, as a dashboard's receiving thread would
            sequence = HEADER.unpack_from(parts[0], len(topic) + 1)[0]
            if expected is None:
                args.ready.touch()
                first, first_sequence = time.perf_counter(), sequence
            elif sequence > expected:
                lost += sequence - expected
            expected = sequence + 1
            received += 1
            size += len(parts[0]) - len(topic) - 1 - HEADER.size
            last = time.perf_counter()
    socket.close()
    context.term()
    args.out.write_text(json.dumps({"received": received, "lost": lost, "bytes": size, "seconds": last - first, "last": last, "first_sequence": first_sequence,
                                    "ended": ended}))
    return 0 if ended else 1


if __name__ == "__main__":
    raise SystemExit(main())
