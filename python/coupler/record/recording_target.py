"""Where a recording is written: a new file beside the target, put in the target's place only once recording
has started, so that an existing recording is never destroyed by a run that fails before it starts.

The new file is created with O_EXCL and O_NOFOLLOW (no link at its name is
followed, whoever placed it), its name hidden and random. Putting it in
place is a rename, which replaces a link at the target rather than writing
through it. Without `overwrite` an existing target is refused at the start,
and a target that appears meanwhile is not replaced either (a hard link that
fails if the name exists).
"""

from __future__ import annotations

import errno
import logging
import os
import secrets
from pathlib import Path
from typing import IO

from coupler.wire.errors import Error

log = logging.getLogger(__name__)

PARTIAL_SUFFIX = ".partial"
FILE_MODE = 0o644


def check_target(path: Path, overwrite: bool) -> None:
    """coupler.Error when `path` cannot become a recording: an existing file without `overwrite`, a
    directory, a folder that does not exist."""
    if path.is_dir():
        raise Error(f"cannot record to '{path}': it is a directory")
    if os.path.lexists(path) and not overwrite:
        raise Error(f"'{path}' exists: pass --overwrite to replace it, or name a new file")
    if not path.parent.is_dir():
        raise Error(f"cannot record to '{path}': no folder '{path.parent}'")


class RecordingTarget:
    """A new file beside `path` to write the recording to (`file`); `place()` puts it at `path`, `discard()`
    removes it unless it was placed. coupler.Error when it cannot be created."""

    def __init__(self, path: str | os.PathLike[str], overwrite: bool = False) -> None:
        self.path = Path(path)
        self.overwrite = overwrite
        check_target(self.path, overwrite)
        self.partial = self.path.parent / f".{self.path.name}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(self.partial, flags, FILE_MODE)
        except OSError as error:
            raise Error(f"cannot record to '{self.path}': {error.strerror or error}") from None
        self.file: IO[bytes] = os.fdopen(fd, "wb")
        self.placed = False

    def place(self) -> None:
        """Put the file written so far at the target (writing goes on into it); coupler.Error when the target
        appeared meanwhile and `overwrite` is off. Safe to call twice."""
        if self.placed:
            return
        if not self.overwrite:
            try:
                os.link(self.partial, self.path, follow_symlinks=False)
            except FileExistsError:
                raise Error(f"'{self.path}' appeared while recording started: left as it is; the recording is in "
                            f"'{self.partial}'") from None
            except OSError as error:
                if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise Error(f"cannot record to '{self.path}': {error.strerror or error}") from None
                os.rename(self.partial, self.path)  # a file system without hard links
            else:
                os.unlink(self.partial)
        else:
            os.rename(self.partial, self.path)
        self.placed = True

    def discard(self) -> None:
        """Remove the new file unless it was placed (the target stays as it was)."""
        if self.placed:
            return
        try:
            os.unlink(self.partial)
        except FileNotFoundError:
            pass
