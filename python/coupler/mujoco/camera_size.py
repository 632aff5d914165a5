"""The sizes cameras are rendered at: --camera NAME=WxH, the default and the limit (no MuJoCo needed)."""

from __future__ import annotations

from dataclasses import dataclass

from coupler.wire.errors import Error
from coupler.wire.peer_text import shown

# The size of a camera whose MJCF says none (its resolution is MuJoCo's default, 1x1).
DEFAULT_WIDTH = 320
DEFAULT_HEIGHT = 240
# The largest width and height a camera may have, announced in the handshake.
MAX_WIDTH = 4096
MAX_HEIGHT = 4096


@dataclass(frozen=True)
class CameraSize:
    """--camera NAME=WxH: the size one camera's images are rendered at."""

    camera: str
    width: int
    height: int


def parse_camera_size(text: str) -> CameraSize:
    """NAME=WxH as --camera takes it; coupler.Error naming the problem otherwise."""
    name, equals, size = text.partition("=")
    width_text, times, height_text = size.lower().partition("x")
    if not equals or not name or not times or not width_text.isdigit() or not height_text.isdigit():
        raise Error(f"--camera takes NAME=WIDTHxHEIGHT (such as wrist=320x240), not {shown(text)!r}")
    width, height = int(width_text), int(height_text)
    if not (1 <= width <= MAX_WIDTH and 1 <= height <= MAX_HEIGHT):
        raise Error(f"--camera {shown(text)}: a camera's size is 1x1 to {MAX_WIDTH}x{MAX_HEIGHT} pixels")
    return CameraSize(name, width, height)
