"""The one error for an optional extra that is not installed, naming the pip command that installs it.

It lives in the lowest layer so that every user raises the same one: the
commands (`coupler replay`), and the packages that need an extra to be
imported at all (`coupler.gym`, `coupler.ray`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from coupler.wire.errors import Error


class MissingExtra(Error, ImportError):
    """`who` needs the optional dependencies of `extra`; an ImportError too, as the import that failed was one."""

    def __init__(self, who: str, extra: str, cause: ImportError | None = None) -> None:
        missing = f" ({cause})" if cause is not None else ""
        super().__init__(f"{who} needs the {extra} extra: pip install 'coupler[{extra}]'{missing}")
        self.extra = extra


@contextlib.contextmanager
def needs_extra(who: str, extra: str) -> Iterator[None]:
    """Around the imports an extra provides: an ImportError among them becomes MissingExtra."""
    try:
        yield
    except ImportError as error:
        if isinstance(error, MissingExtra):
            raise
        raise MissingExtra(who, extra, error) from None
