"""The pyzmq transport floor for perf.rtt: a plain REQ/REP ping-pong with
frames of given sizes, the same program as zmq_pingpong.cpp with the same flags.

    python -m perf.floor.pingpong --role server --addr ADDR --count N --request-bytes A --reply-bytes B
    python -m perf.floor.pingpong --role client --addr ADDR --count N --request-bytes A --reply-bytes B \\
        [--timings-file PATH]

The client first makes one untimed exchange (connecting, as a coupler
client's handshake does), then --count timed ones; the server answers
--count + 1 requests and exits. Every send and receive gives up after --timeout.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import zmq


class PingPongError(Exception):
    """A send or receive that timed out, or a frame of the wrong size."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m perf.floor.pingpong",
        description="A plain pyzmq REQ/REP ping-pong: the floor a protocol round trip of the same frame sizes "
        "is measured against.",
    )
    parser.add_argument("--role", choices=["server", "client"], required=True,
                        help="server binds a REP socket; client connects a REQ socket")
    parser.add_argument("--addr", required=True, help="tcp://host:port or ipc://path")
    parser.add_argument("--count", type=int, default=1000, help="timed round trips (default: %(default)s)")
    parser.add_argument("--request-bytes", type=int, default=100,
                        help="size of each request frame (default: %(default)s)")
    parser.add_argument("--reply-bytes", type=int, default=100,
                        help="size of each reply frame (default: %(default)s)")
    parser.add_argument("--timings-file", type=Path, default=None, metavar="PATH",
                        help="client: write each round trip to PATH, one per line, in microseconds "
                             "(default: not written)")
    parser.add_argument("--timeout", type=float, default=5.0, metavar="SECONDS",
                        help="give up when a send or receive takes longer than this (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count must be at least 1, got {args.count}")
    if args.request_bytes < 0 or args.reply_bytes < 0:
        parser.error("frame sizes must be 0 or more")
    if args.timeout <= 0:
        parser.error(f"--timeout must be positive, got {args.timeout}")
    return args


def open_socket(context: zmq.Context, kind: int, timeout: float) -> zmq.Socket:
    socket = context.socket(kind)
    socket.linger = 0
    socket.rcvtimeo = socket.sndtimeo = int(timeout * 1000)
    return socket


def receive(socket: zmq.Socket, size: int, what: str) -> None:
    try:
        frame = socket.recv()
    except zmq.Again:
        raise PingPongError(f"no {what} within the timeout") from None
    # Both sides are told both sizes, so a mismatched pair of commands fails instead of measuring the wrong thing.
    if len(frame) != size:
        raise PingPongError(f"{what} has {len(frame)} bytes, expected {size}")


def send(socket: zmq.Socket, frame: bytes, what: str) -> None:
    try:
        socket.send(frame)
    except zmq.Again:
        raise PingPongError(f"could not send the {what} within the timeout") from None


def serve(args: argparse.Namespace, context: zmq.Context) -> None:
    with open_socket(context, zmq.REP, args.timeout) as socket:
        socket.bind(args.addr)
        reply = bytes([0x5A]) * args.reply_bytes
        for _ in range(args.count + 1):
            receive(socket, args.request_bytes, "request")
            send(socket, reply, "reply")


def ping(args: argparse.Namespace, context: zmq.Context) -> None:
    with open_socket(context, zmq.REQ, args.timeout) as socket:
        socket.connect(args.addr)
        request = bytes([0xA5]) * args.request_bytes
        send(socket, request, "request")
        receive(socket, args.reply_bytes, "reply")
        round_trips = np.empty(args.count)
        started = time.perf_counter()
        cpu_started = time.process_time()  # all threads of the process, pyzmq's I/O thread too
        for i in range(args.count):
            sent = time.perf_counter()
            send(socket, request, "request")
            receive(socket, args.reply_bytes, "reply")
            round_trips[i] = time.perf_counter() - sent
        total = time.perf_counter() - started
        cpu_seconds = time.process_time() - cpu_started
    round_trips *= 1e6
    if args.timings_file is not None:
        np.savetxt(args.timings_file, round_trips, fmt="%.3f")
    print(f"round trips:             {args.count}")
    print(f"round trips per second:  {args.count / total:.1f}")
    print(f"round trip p50:          {np.quantile(round_trips, 0.5, method='nearest'):.1f} us")
    print(f"round trip p99:          {np.quantile(round_trips, 0.99, method='nearest'):.1f} us")
    print(f"client CPU per round trip: {cpu_seconds / args.count * 1e6:.1f} us")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    context = zmq.Context()
    try:
        (serve if args.role == "server" else ping)(args, context)
    except (PingPongError, zmq.ZMQError, OSError) as error:
        print(f"perf.floor.pingpong: {error}", file=sys.stderr)
        return 1
    finally:
        context.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())
