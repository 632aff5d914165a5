"""Offscreen OpenGL for rendering cameras on a machine without a display: EGL, else OSMesa.

EGL works with a GPU's driver or with Mesa's software one; OSMesa is Mesa's
software renderer on its own. MUJOCO_GL=egl or osmesa picks one, and so
does a PYOPENGL_PLATFORM that is already set (PyOpenGL binds one platform
per process). Whether a backend's library loads is checked at start (a
millisecond); its context is made only when the first image is asked for,
so a server whose clients want no image never pays for OpenGL.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
from typing import Any

log = logging.getLogger(__name__)

# The shared library each backend loads, in the order they are tried.
_LIBRARIES = {"egl": ("libEGL.so.1", "libEGL.so"), "osmesa": ("libOSMesa.so.8", "libOSMesa.so.6", "libOSMesa.so")}


def _candidates() -> list[str]:
    chosen = os.environ.get("PYOPENGL_PLATFORM", "").lower() or os.environ.get("MUJOCO_GL", "").lower()
    return [chosen] if chosen in _LIBRARIES else list(_LIBRARIES)


def _loads(name: str) -> bool:
    for library in _LIBRARIES[name]:
        try:
            ctypes.CDLL(library)
            return True
        except OSError:
            continue
    return False


def available_backends() -> tuple[list[str], str]:
    """The backends whose library loads, in the order to try them; and, when there is none, why (one line)."""
    found = [name for name in _candidates() if _loads(name)]
    if found:
        return found, ""
    tried = " or ".join(lib for name in _candidates() for lib in _LIBRARIES[name][:1])
    return [], (f"no offscreen OpenGL: neither EGL nor OSMesa loads ({tried} not found); install Mesa's "
                "libegl1 or libosmesa6 to serve cameras")


def _forget_opengl() -> None:
    """Let PyOpenGL bind another platform: only before any context of the one it bound was made."""
    for module in [m for m in sys.modules if m == "OpenGL" or m.startswith(("OpenGL.", "mujoco.egl", "mujoco.osmesa"))]:
        del sys.modules[module]
    os.environ.pop("PYOPENGL_PLATFORM", None)


def make_context(backends: list[str], width: int, height: int) -> tuple[Any, str]:
    """A current GL context of the first of `backends` that makes one, and its name; RuntimeError naming each
    backend's failure when none does. Call on the thread that renders with it."""
    failures = []
    for name in backends:
        try:
            if name == "egl":
                from mujoco.egl import GLContext
            else:
                from mujoco.osmesa import GLContext
            context = GLContext(width, height)
            context.make_current()
            return context, name
        except Exception as error:  # a driver fails in its own ways: the next backend is tried
            failures.append(f"{name}: {' '.join(str(error).split())[:200]}")
            _forget_opengl()
    raise RuntimeError("no offscreen OpenGL context: " + "; ".join(failures))
