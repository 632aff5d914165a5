"""What the commands that read recordings (replay, plot, render) share: the record extra and the file."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from coupler.wire.errors import Error


@contextlib.contextmanager
def record_extra(command: str) -> Iterator[None]:
    """Around the imports of coupler.record: a missing dependency becomes an Error naming the extra."""
    try:
        yield
    except ImportError as error:
        raise Error(f"{command} needs the record extra (pip install 'coupler[record]'): {error}") from None


def existing_recording(path: Path) -> Path:
    if not path.is_file():
        raise Error(f"no recording at '{path}'")
    return path
