"""The file a command writes (`plot --out`, `render --out`), checked before any work is done.

A path naming a folder, a folder that does not exist, or a format the
command cannot write ends in one line naming the path, not in a traceback
after the work, nor in a file written beside the one asked for (a writer
that adds the suffix a path lacks writes `DIR.png` for `DIR`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coupler.wire.errors import Error
from coupler.wire.peer_text import shown


def output_file(flag: str, path: Path, formats: Sequence[str]) -> Path:
    """`path` if a file of one of `formats` (suffixes such as ".png") can be written there; else Error."""
    named = f"'{shown(str(path))}'"
    if path.is_dir():
        raise Error(f"{flag} {named} is a folder: name the file to write in it, such as "
                    f"'{shown(str(path / ('out' + formats[0])))}'")
    if path.suffix.lower() not in formats:
        raise Error(f"cannot write {named}: the formats are {', '.join(formats)}")
    folder = path.parent
    if not folder.is_dir():
        raise Error(f"{flag} {named}: there is no folder '{shown(str(folder))}' to write it in")
    return path
