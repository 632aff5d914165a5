"""The server's limit of open files, raised as far as the system lets a process raise it.

Every connection costs the server a file descriptor; under the common soft
limit of 1,024 a burst of connections leaves none for the next controller.
The hard limit is what the administrator granted, so the server takes it.
"""

from __future__ import annotations

import logging
import resource

log = logging.getLogger("coupler.serve")


def raise_open_file_limit() -> int:
    """Raise the soft RLIMIT_NOFILE to the hard limit; return the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft == hard:
        return soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ValueError, OSError) as error:
        log.warning("could not raise the open-file limit from %d to %d: %s", soft, hard, error)
        return soft
    return hard
