"""Whether this process can open a window: the native front end needs a display, the browser one does not."""

from __future__ import annotations

import os


def has_display() -> bool:
    """An X11 or Wayland display is named in the environment."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
