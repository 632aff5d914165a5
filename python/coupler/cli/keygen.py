"""`coupler keygen`: a CurveZMQ key pair for a server or a controller."""

from __future__ import annotations

import argparse
from pathlib import Path

from coupler.transport.curve_keys import create_key_pair


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="base name of the two files, e.g. the host or role (server, controller1)")
    parser.add_argument("--dir", default=".", help="directory to write the files into, created if missing "
                                                   "(default: %(default)s)")
    parser.add_argument("--force", action="store_true", help="replace an existing key pair of that name "
                                                             "(default: off)")


def run(args: argparse.Namespace) -> int:
    public, secret = create_key_pair(Path(args.dir), args.name, overwrite=args.force)
    print(f"public key: {public}  (give this to the peer that must accept you)")
    print(f"secret key: {secret}  (keep this; readable by you only)")
    return 0
