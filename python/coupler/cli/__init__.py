"""The `coupler` command: serve a scene, look at a server, make keys.

    coupler serve --scene arm           # serve a scene (needs the sim extra)
    coupler info tcp://127.0.0.1:5555   # what a server (coupler or Click) serves
    coupler keygen NAME --dir DIR       # a CurveZMQ key pair
"""

from __future__ import annotations

import argparse
import sys

from coupler.cli import info, keygen, serve
from coupler.wire.errors import Error


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="coupler", description="coupler: robot controllers and simulations over "
                                                             "ZeroMQ, speaking the Click protocol.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    serving = commands.add_parser(
        "serve", help="serve a scene to its controllers",
        description="Serve a simulated scene (a shipped one or any MJCF file) to its controllers over the coupler "
                    "(Click v1) protocol. Prints a summary on exit (Ctrl-C, SIGTERM, --stop-after).")
    serve.add_arguments(serving)
    serving.set_defaults(run=lambda args: serve.run(args, "coupler serve"),
                         check=lambda p, args: serve.check_arguments(p, args), sub=serving)
    looking = commands.add_parser(
        "info", help="print what a server serves",
        description="Connect to a server (coupler or Click), do the handshake, print what it serves as tables "
                    "(objects, controls with type, unit and range, events, sensors, time step, server and the "
                    "extensions it supports), and leave cleanly.")
    info.add_arguments(looking)
    looking.set_defaults(run=info.run, sub=looking)
    keys = commands.add_parser(
        "keygen", help="create a CurveZMQ key pair",
        description="Create a CurveZMQ key pair: NAME.key (public, to hand out) and NAME.key_secret (secret, "
                    "mode 0600). A server is given its own .key_secret and a directory of the .key files of the "
                    "clients it accepts.")
    keygen.add_arguments(keys)
    keys.set_defaults(run=keygen.run, sub=keys)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    check = getattr(args, "check", None)
    if check is not None:
        check(args.sub, args)
    try:
        return args.run(args)
    except Error as error:
        print(f"coupler {args.command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
