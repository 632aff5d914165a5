"""What the commands that read recordings (replay, plot, render) share: the recording file they are given."""

from __future__ import annotations

from pathlib import Path

from coupler.wire.errors import Error


def existing_recording(path: Path) -> Path:
    if not path.is_file():
        raise Error(f"no recording at '{path}'")
    return path
