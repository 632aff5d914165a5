"""CurveZMQ key pairs on disk, in ZeroMQ's certificate format.

`NAME.key` holds the public key and may be handed out (a server keeps its
allowed clients' `.key` files in one directory); `NAME.key_secret` holds both
keys and stays with its owner, readable by the owner only. The format is the
one czmq and pyzmq's `zmq.auth` read, so keys made elsewhere work here.
Reading goes through the C++ library's reader, which the C++ programs use too;
it refuses a secret key that group or others may read.

The files are written here rather than by `zmq.auth.create_certificates`,
whose modes follow the umask and whose secret exists world-readable until it
is chmod-ed: under umask 000 that makes an allow-list directory anyone can
add a key to. Here the modes are set whatever the umask, and a secret is
never on disk with a mode other than 0600.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import zmq

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
    _make_key_directory(directory)
    public, secret = directory / f"{name}.key", directory / f"{name}.key_secret"
    existing = [p for p in (public, secret) if p.exists()]
    if existing and not overwrite:
        raise Error(f"{existing[0]} exists; pass --force to replace the key pair")
    public_key, secret_key = zmq.curve_keypair()
    _write_certificate(secret, SECRET_MODE, _SECRET_BANNER, public_key, secret_key)
    _write_certificate(public, PUBLIC_MODE, _PUBLIC_BANNER, public_key)
    return public, secret


DIRECTORY_MODE = 0o700  # a new key directory: the owner's alone
PUBLIC_MODE = 0o644
SECRET_MODE = 0o600
_NOT_WRITABLE_BY_OTHERS = ~(stat.S_IWGRP | stat.S_IWOTH)

_SECRET_BANNER = """#   ZeroMQ CURVE **Secret** Certificate
#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.

"""
_PUBLIC_BANNER = """#   ZeroMQ CURVE Public Certificate
#   Exchange securely, or use a secure mechanism to verify the contents
#   of this file after exchange.

"""


def _make_key_directory(directory: Path) -> None:
    """Create `directory` with mode 0700; an existing one loses write access for group and others,
    since anyone who can write an allow-list directory can add a key to it."""
    try:
        directory.mkdir(mode=DIRECTORY_MODE, parents=True)
        os.chmod(directory, DIRECTORY_MODE)  # mkdir's mode is filtered by the umask
    except FileExistsError:
        if not directory.is_dir():
            raise Error(f"{directory} exists and is not a directory") from None
        mode = stat.S_IMODE(directory.stat().st_mode)
        if mode & ~_NOT_WRITABLE_BY_OTHERS:
            os.chmod(directory, mode & _NOT_WRITABLE_BY_OTHERS)


def _write_certificate(path: Path, mode: int, banner: str, public_key: bytes, secret_key: bytes | None = None) -> None:
    """Write a certificate in ZeroMQ's format to a new file created with `mode`, then move it over `path`,
    so that neither a half-written file nor one with a looser mode is ever at `path`."""
    text = banner + "metadata\ncurve\n" + f'    public-key = "{public_key.decode()}"\n'
    if secret_key is not None:
        text += f'    secret-key = "{secret_key.decode()}"\n'
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")  # created 0600
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), mode)
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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
