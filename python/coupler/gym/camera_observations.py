"""Camera images in observations: `cameras=[...]` makes an environment's observation a Gymnasium `Dict`.

    env = gymnasium.make("coupler/Scene-v0", cameras=["overview", ("overview", "depth")])
    observation, info = env.reset()
    observation["state"]           # the state vector the environment returns without cameras
    observation["overview/rgb"]    # (H, W, 3) uint8, row 0 the top of the picture
    observation["overview/depth"]  # (H, W) float32, metres along the optical axis

Each entry of `cameras` is a camera name of the server's handshake (its rgb
image), or (name, kind) or (name, (kinds...)) with kinds of "rgb", "depth"
and "segmentation" (int32 geom ids, -1 where no geom is seen). A vector
environment stacks every world's images: (N, H, W, 3) and (N, H, W).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from coupler.wire.errors import Error
from coupler.wire.messages import IMAGE_KINDS, CameraDescription, HandshakeMessage
from coupler.wire.name_list import valid_names
from coupler.wire.peer_text import shown

STATE_KEY = "state"
# What an entry of `cameras` may be: a name, or (name, kind), or (name, kinds).
CameraEntry = str | tuple[str, str] | tuple[str, Sequence[str]]
Wanted = list[tuple[str, tuple[str, ...]]]


def key(camera: str, kind: str) -> str:
    """The observation's key of one camera's images of one kind."""
    return f"{camera}/{kind}"


def wanted_cameras(cameras: Sequence[CameraEntry], handshake: HandshakeMessage) -> Wanted:
    """`cameras` as (name, kinds) each, the kinds of a camera named twice merged; Error naming an unknown camera or
    kind, or a server without cameras."""
    offered = handshake.cameras
    if isinstance(cameras, str):
        raise Error(f"cameras must be a list of camera names, got the string {cameras!r}: write [{cameras!r}]")
    wanted: dict[str, list[str]] = {}
    for entry in cameras:
        if isinstance(entry, str):
            name, kinds = entry, ("rgb",)
        elif isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
            name, kinds = entry[0], (entry[1],) if isinstance(entry[1], str) else tuple(entry[1])
        else:
            raise Error(f"a camera of cameras is a name or (name, kinds), got {entry!r}")
        if not offered:
            raise Error(f"camera {shown(name)!r} asked for, but the server serves no cameras (a scene without "
                        "<camera>, --no-cameras, or no OpenGL to render with)")
        if name not in offered:
            raise Error(f"no camera named {shown(name)!r}; {valid_names(list(offered))}")
        for kind in kinds:
            if kind not in offered[name].kinds:
                raise Error(f"camera {shown(name)!r} renders no {shown(str(kind))!r} images; it renders "
                            f"{', '.join(offered[name].kinds)} (of {', '.join(IMAGE_KINDS)})")
            if kind not in wanted.setdefault(name, []):
                wanted[name].append(kind)
    return [(name, tuple(kinds)) for name, kinds in wanted.items()]


def _image_space(camera: CameraDescription, kind: str) -> spaces.Box:
    h, w = camera.height, camera.width
    if kind == "rgb":
        return spaces.Box(0, 255, (h, w, 3), np.uint8)
    if kind == "depth":
        # Finite, as coupler.gym.spaces bounds readings: an infinite bound would make Gymnasium's checker warn.
        return spaces.Box(0.0, np.finfo(np.float32).max, (h, w), np.float32)
    return spaces.Box(-1, np.iinfo(np.int32).max, (h, w), np.int32)


def observation_dict(state: spaces.Space[Any], wanted: Wanted, handshake: HandshakeMessage) -> spaces.Dict:
    """The Dict space of one world's observation: `state` under STATE_KEY, then each image of `wanted`."""
    images = {key(name, kind): _image_space(handshake.cameras[name], kind) for name, kinds in wanted
              for kind in kinds}
    return spaces.Dict({STATE_KEY: state, **images})


def observation(state: Any, images: Mapping[str, Any], wanted: Wanted) -> dict[str, Any]:
    """The Dict observation of `state` and `images` (camera name -> what has .rgb, .depth, .segmentation arrays;
    a vector environment's stacked)."""
    out = {STATE_KEY: state}
    for name, kinds in wanted:
        for kind in kinds:
            out[key(name, kind)] = getattr(images[name], kind)
    return out
