"""The `coupler` command: tools around a coupler deployment."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from coupler.curve_keys import create_key_pair
from coupler.errors import Error


def _keygen(args: argparse.Namespace) -> int:
    public, secret = create_key_pair(Path(args.dir), args.name, overwrite=args.force)
    print(f"public key: {public}  (give this to the peer that must accept you)")
    print(f"secret key: {secret}  (keep this; readable by you only)")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="coupler", description="Tools for coupler deployments.")
    commands = top.add_subparsers(dest="command", required=True)
    keygen = commands.add_parser(
        "keygen",
        help="create a CurveZMQ key pair",
        description="Create a CurveZMQ key pair: NAME.key (public, to hand out) and NAME.key_secret "
        "(secret, mode 0600). A server is given its own .key_secret and a directory of the "
        ".key files of the clients it accepts.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    keygen.add_argument("name", help="base name of the two files, e.g. the host or role (server, controller1)")
    keygen.add_argument("--dir", default=".", help="directory to write the files into (created if missing)")
    keygen.add_argument("--force", action="store_true", help="replace an existing key pair of that name")
    keygen.set_defaults(run=_keygen)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except Error as error:
        print(f"coupler {args.command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
