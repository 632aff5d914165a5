"""One side of a perf.reliability ping-pong: a pyzmq REQ client, or a REP or
ROUTER server, with any of the reliability features coupler's transport
turns on, so each one's cost per round trip can be measured alone.

    python -m perf.reliability.peer --role server --addr ADDR --count N [--router] [--heartbeat S]
        [--monitor] [--curve-secret KEY]
    python -m perf.reliability.peer --role client --addr ADDR --count N [--correlate] [--heartbeat S]
        [--curve-server KEY --curve-public KEY --curve-secret KEY]

The client makes one untimed exchange, then --count timed ones, and prints
its p50 and CPU time per round trip; the server answers --count + 1 requests
and prints its CPU time per round trip over all but the first. Keys are Z85
text. Every send and receive gives up after --timeout.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import zmq

REQUEST = bytes(126)  # coupler's static scene: a hold-still Control and its Sensor
REPLY = bytes(990)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m perf.reliability.peer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=["server", "client"], required=True,
                        help="server binds (REP, or ROUTER with --router); client connects a REQ socket")
    parser.add_argument("--addr", required=True, help="tcp://127.0.0.1:port or ipc://path")
    parser.add_argument("--count", type=int, required=True, help="timed round trips (at least 1)")
    parser.add_argument("--router", action="store_true",
                        help="server: a ROUTER socket answering through the envelope, as coupler's server does "
                             "(default: REP)")
    parser.add_argument("--correlate", action="store_true",
                        help="client: REQ_RELAXED and REQ_CORRELATE, as coupler's Client sets them, which add a "
                             "request id frame to every request (default: off)")
    parser.add_argument("--heartbeat", type=float, default=0.0, metavar="SECONDS",
                        help="ZMTP heartbeats at this interval with a timeout of three (default 0: off)")
    parser.add_argument("--monitor", action="store_true",
                        help="server: a socket monitor polled beside the socket, as coupler's server watches "
                             "connections (default: off)")
    parser.add_argument("--curve-server", default=None, metavar="KEY",
                        help="client: the server's public key, to connect with CURVE (default: no CURVE)")
    parser.add_argument("--curve-public", default=None, metavar="KEY", help="client: its own public key")
    parser.add_argument("--curve-secret", default=None, metavar="KEY",
                        help="server: its secret key, to bind as a CURVE server; client: its own secret key "
                             "(default: no CURVE)")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                        help="give up when a send or receive takes longer (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count must be at least 1, got {args.count}")
    return args


def _socket(context: zmq.Context, kind: int, args: argparse.Namespace) -> zmq.Socket:
    socket = context.socket(kind)
    socket.linger = 0
    socket.rcvtimeo = socket.sndtimeo = int(args.timeout * 1000)
    if args.heartbeat > 0:
        socket.heartbeat_ivl = round(args.heartbeat * 1000)
        socket.heartbeat_timeout = socket.heartbeat_ttl = round(3 * args.heartbeat * 1000)
    return socket


def serve(args: argparse.Namespace, context: zmq.Context) -> None:
    socket = _socket(context, zmq.ROUTER if args.router else zmq.REP, args)
    if args.curve_secret:
        socket.curve_server = True
        socket.curve_secretkey = args.curve_secret.encode()
    socket.bind(args.addr)
    poller = None
    if args.monitor:
        poller = zmq.Poller()
        poller.register(socket, zmq.POLLIN)
        monitor = socket.get_monitor_socket()
        poller.register(monitor, zmq.POLLIN)
    started = 0.0
    for i in range(args.count + 1):
        if poller is not None:
            while True:
                ready = dict(poller.poll(int(args.timeout * 1000)))
                if not ready:
                    raise TimeoutError("no request within the timeout")
                if monitor in ready:
                    monitor.recv_multipart()
                if socket in ready:
                    break
        if args.router:
            frames = socket.recv_multipart()
            socket.send_multipart(frames[:-1] + [REPLY])
        else:
            socket.recv()
            socket.send(REPLY)
        if i == 0:
            started = time.process_time()
    print(f"server CPU per round trip: {(time.process_time() - started) / args.count * 1e6:.2f} us")


def ping(args: argparse.Namespace, context: zmq.Context) -> None:
    socket = _socket(context, zmq.REQ, args)
    if args.correlate:
        socket.setsockopt(zmq.REQ_RELAXED, 1)
        socket.setsockopt(zmq.REQ_CORRELATE, 1)
    if args.curve_server:
        socket.curve_serverkey = args.curve_server.encode()
        socket.curve_publickey = args.curve_public.encode()
        socket.curve_secretkey = args.curve_secret.encode()
    socket.connect(args.addr)
    socket.send(REQUEST)
    socket.recv()
    round_trips = np.empty(args.count)
    started, cpu_started = time.perf_counter(), time.process_time()
    for i in range(args.count):
        sent = time.perf_counter()
        socket.send(REQUEST)
        socket.recv()
        round_trips[i] = time.perf_counter() - sent
    cpu = time.process_time() - cpu_started
    total = time.perf_counter() - started
    print(f"round trips per second: {args.count / total:.1f}")
    print(f"round trip p50: {np.quantile(round_trips, 0.5, method='nearest') * 1e6:.2f} us")
    print(f"client CPU per round trip: {cpu / args.count * 1e6:.2f} us")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    context = zmq.Context()
    try:
        (serve if args.role == "server" else ping)(args, context)
    except (zmq.ZMQError, TimeoutError, OSError) as error:
        print(f"perf.reliability.peer: {error}", file=sys.stderr)
        return 1
    finally:
        context.destroy(linger=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
