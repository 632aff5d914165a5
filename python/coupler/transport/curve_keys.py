"""CurveZMQ key pairs on disk, in ZeroMQ's certificate format.

`NAME.key` holds the public key and may be handed out (a server keeps its
allowed clients' `.key` files in one directory); `NAME.key_secret` holds both
keys and stays with its owner, readable by the owner only. The format is the
one czmq and pyzmq's `zmq.auth` read, so keys made elsewhere work here.
Reading goes through the C++ library's reader, which the C++ programs use too.
"""

from __future__ import annotations

import os
from pathlib import Path

import zmq
import zmq.auth

from coupler import _native
from coupler.wire.errors import Error


def create_key_pair(directory: Path, name: str, overwrite: bool = False) -> tuple[Path, Path]:
    """Write NAME.key and NAME.key_secret into `directory`; return their paths.

    Refuses (coupler.Error) to replace an existing pair unless `overwrite`,
    since a replaced secret key locks out every peer that trusted it.
    """
    if not zmq.has("curve"):
        raise Error("this libzmq was built without CURVE support")
    if not name or "/" in name or name.startswith("."):
        raise Error(f"key name '{name}' must be a plain file name")
    directory.mkdir(parents=True, exist_ok=True)
    public, secret = directory / f"{name}.key", directory / f"{name}.key_secret"
    existing = [p for p in (public, secret) if p.exists()]
    if existing and not overwrite:
        raise Error(f"{existing[0]} exists; pass --force to replace the key pair")
    public_file, secret_file = zmq.auth.create_certificates(directory, name)
    os.chmod(secret_file, 0o600)
    return Path(public_file), Path(secret_file)


def load_public_key(path: Path) -> bytes:
    """The Z85 public key of a .key or .key_secret file."""
    return _native.load_curve_public_key(str(path))


def load_key_pair(path: Path) -> tuple[bytes, bytes]:
    """The Z85 (public, secret) keys of a .key_secret file."""
    return _native.load_curve_key_pair(str(path))


def load_public_keys(directory: Path) -> list[bytes]:
    """The public keys of every *.key file in `directory`, in file name order: a server's allow-list.

    coupler.Error when the directory cannot be read, a file is not a
    certificate, or there is no key at all (a server would refuse everyone).
    """
    return _native.load_curve_public_keys(str(directory))
