"""Command-line flags for the transport options (CurveZMQ keys, heartbeats,
frame size limit, a client's timeout), shared by `coupler serve`, every
client command (`coupler info`, `record`, `replay`) and the demo controller,
and their translation into one `TransportOptions`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from coupler.transport.bind_policy import check_port, tcp_host, transport_of
from coupler.transport.curve_keys import load_key_pair, load_public_key, load_public_keys
from coupler.cli.number_flags import float_in, int_in
from coupler.limits import (
    HANDSHAKE_TIMEOUT,
    HEARTBEAT,
    HEARTBEAT_TIMEOUT_INTERVALS,
    LARGEST_FRAME_LIMIT,
    MAX_FRAME_BYTES,
    MAX_HANDSHAKE_TIMEOUT,
    MAX_HEARTBEAT,
    MAX_TIMEOUT,
    MIN_HANDSHAKE_TIMEOUT,
    MIN_HEARTBEAT,
    MIN_TIMEOUT,
    REQUEST_TIMEOUT,
)
from coupler.wire.errors import Error
from coupler.transport.options import TransportOptions


def _add_max_frame_bytes_flag(parser: argparse.ArgumentParser, peer: str) -> None:
    parser.add_argument("--max-frame-bytes", type=int_in(0, LARGEST_FRAME_LIMIT), default=MAX_FRAME_BYTES,
                        metavar="N",
                        help=f"largest frame accepted from the {peer}; a larger one is never decoded, ZeroMQ drops "
                             f"the connection instead; at most {LARGEST_FRAME_LIMIT}, 0 means no limit (default: %(default)s)")


def _add_liveness_flags(parser: argparse.ArgumentParser, peer: str) -> None:
    parser.add_argument("--heartbeat", type=float_in(MIN_HEARTBEAT, MAX_HEARTBEAT, zero_allowed=True, unit="s"),
                        default=HEARTBEAT, metavar="SECONDS",
                        help=f"send a ZMTP heartbeat after this much silence on a tcp:// or ipc:// connection and "
                             f"drop the connection when the {peer} sends nothing for "
                             f"{HEARTBEAT_TIMEOUT_INTERVALS} times as long, so a dead {peer} is noticed; from "
                             f"{MIN_HEARTBEAT:g} to {MAX_HEARTBEAT:g}, 0 turns heartbeats off (default: %(default)s)")
    _add_max_frame_bytes_flag(parser, peer)


def add_server_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--curve-secret", type=Path, default=None, metavar="PATH",
                        help="the server's own NAME.key_secret (made by `coupler keygen`): encrypt every TCP "
                             "connection with CurveZMQ and accept only clients in --curve-allow; needs --curve-allow "
                             "(default: %(default)s, no encryption)")
    parser.add_argument("--curve-allow", type=Path, default=None, metavar="DIR",
                        help="directory of the *.key public keys of the clients to accept; every other client is "
                             "refused and logged with its address and key; needs --curve-secret (default: %(default)s)")
    parser.add_argument("--handshake-timeout", default=HANDSHAKE_TIMEOUT, metavar="SECONDS",
                        type=float_in(MIN_HANDSHAKE_TIMEOUT, MAX_HANDSHAKE_TIMEOUT, zero_allowed=True, unit="s"),
                        help="drop a connection that has not finished its ZMTP (and CURVE) handshake within this "
                             "time, so connections that stall after their greeting cannot use up the server's file "
                             f"descriptors; from {MIN_HANDSHAKE_TIMEOUT:g} to {MAX_HANDSHAKE_TIMEOUT:g}, 0 never drops one "
                             "(default: %(default)s)")
    _add_liveness_flags(parser, "controller")


def add_client_flags(parser: argparse.ArgumentParser, *, answered: bool = True) -> None:
    """The flags of every client: CURVE keys and the frame limit; for a client whose requests are `answered`
    (not a subscriber), also --timeout and heartbeats."""
    _add_client_curve_flags(parser)
    if not answered:
        _add_max_frame_bytes_flag(parser, "server")
        return
    parser.add_argument("--timeout", type=float_in(MIN_TIMEOUT, MAX_TIMEOUT, unit="s"), default=REQUEST_TIMEOUT,
                        metavar="SECONDS",
                        help=f"give up when the server does not answer within this many seconds, from "
                             f"{MIN_TIMEOUT:g} to {MAX_TIMEOUT:g} (default: %(default)s)")
    _add_liveness_flags(parser, "server")


def _add_client_curve_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--curve-server-key", type=Path, default=None, metavar="PATH",
                        help="the server's public NAME.key: connect with CurveZMQ encryption and authentication; "
                             "needs --curve-key (default: %(default)s, no encryption)")
    parser.add_argument("--curve-key", type=Path, default=None, metavar="PATH",
                        help="this client's own NAME.key_secret (made by `coupler keygen`; its .key must be in the "
                             "server's --curve-allow directory); needs --curve-server-key (default: %(default)s)")


# What a client connects over: ZeroMQ's transports to a server (the others are multicast or hypervisor ones).
_CONNECT_TRANSPORTS = ("tcp", "ipc", "ws", "wss", "inproc")


def check_connect_address(address: str) -> None:
    """coupler.Error in one line for an address a client cannot connect to: a transport ZeroMQ has no such
    connection for (a misspelt scheme), a port outside 1..65535 or none (a wildcard picks none to connect to)."""
    transport = transport_of(address)
    if transport not in _CONNECT_TRANSPORTS:
        raise Error(f"cannot connect to {address[:200]}: transport '{transport[:20]}://' is not one of "
                    f"{', '.join(t + '://' for t in _CONNECT_TRANSPORTS)}")
    check_port(address)
    if tcp_host(address) is not None and address.rsplit(":", 1)[1].split("/", 1)[0] in ("*", "0"):
        raise Error(f"cannot connect to {address[:200]}: name the port the server listens on")


def _liveness(args: argparse.Namespace) -> dict[str, Any]:
    if args.heartbeat < 0:
        raise Error(f"--heartbeat must be 0 or more, got {args.heartbeat}")
    if args.max_frame_bytes < 0:
        raise Error(f"--max-frame-bytes must be 0 or more, got {args.max_frame_bytes}")
    return {
        "heartbeat": args.heartbeat,
        "heartbeat_timeout": args.heartbeat * HEARTBEAT_TIMEOUT_INTERVALS,
        "max_frame_bytes": args.max_frame_bytes,
    }


def server_options(args: argparse.Namespace) -> TransportOptions:
    """The server's options from the flags of add_server_flags; coupler.Error for a bad combination or key file."""
    if (args.curve_secret is None) != (args.curve_allow is None):
        raise Error("--curve-secret and --curve-allow go together: the server's key pair and the clients it accepts")
    if args.curve_secret is None:
        return TransportOptions(**_liveness(args), handshake_timeout=args.handshake_timeout)
    if not args.curve_allow.is_dir():
        raise Error(f"--curve-allow {args.curve_allow} is not a directory")
    return TransportOptions(
        **_liveness(args),
        handshake_timeout=args.handshake_timeout,
        curve_key_pair=load_key_pair(args.curve_secret),
        curve_allowed_clients=tuple(load_public_keys(args.curve_allow)),
    )


def client_options(args: argparse.Namespace) -> TransportOptions:
    """The client's options from the flags of add_client_flags; coupler.Error for a bad combination or key file."""
    if not hasattr(args, "heartbeat"):  # a subscriber's flags
        return TransportOptions(max_frame_bytes=args.max_frame_bytes, **_client_curve_keys(args))
    return TransportOptions(**_liveness(args), **_client_curve_keys(args))


def _client_curve_keys(args: argparse.Namespace) -> dict[str, Any]:
    """The CURVE keywords of TransportOptions from the flags of add_client_flags (none without them);
    coupler.Error for a bad combination or key file."""
    if (args.curve_server_key is None) != (args.curve_key is None):
        raise Error("--curve-server-key and --curve-key go together: the server's public key and this client's pair")
    if args.curve_server_key is None:
        return {}
    return {"curve_server_key": load_public_key(args.curve_server_key), "curve_key_pair": load_key_pair(args.curve_key)}
