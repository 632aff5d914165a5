"""MuJoCo's own warnings, through coupler's rate-limited log.

Left to itself, MuJoCo prints each warning to stdout and appends it to
MUJOCO_LOG.TXT in the working folder, never rotated: a peer alternating a
Reset to a huge state and a step made it write megabytes a second. Routed
here, a warning is a log line like any other a peer triggers, at most
`DEFAULT_BURST` a minute (`coupler.serve.rate_limited_log`), and no file is written.
"""

from __future__ import annotations

import logging

import mujoco

from coupler.serve.rate_limited_log import RateLimitedLog
from coupler.wire.peer_text import shown

log = logging.getLogger("coupler.mujoco")

_limited = RateLimitedLog(log)
_routed = False


def _warn(message: str) -> None:
    # A peer chose the state the warning quotes (a DOF, a time): shown escaped and cut like peer text.
    _limited.warning("MuJoCo warning: %s", shown(message))


def route_mujoco_warnings() -> None:
    """Send MuJoCo's warnings (process-wide) to the rate-limited log instead of stdout and MUJOCO_LOG.TXT."""
    global _routed
    if not _routed:
        mujoco.set_mju_user_warning(_warn)
        _routed = True
