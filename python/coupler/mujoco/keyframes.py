"""A model's keyframes: its named start states, chosen by name or by index.

`coupler serve --keyframe NAME|INDEX` starts and resets there, the handshake
lists them (the "keyframes" extension) and a Reset can ask for one. A
keyframe sets what `mj_resetDataKeyframe` sets: time, qpos, qvel, act, ctrl,
mocap_pos and mocap_quat.
"""

from __future__ import annotations

import mujoco

from coupler.wire.errors import Error
from coupler.wire.peer_text import shown

__all__ = ["UnknownKeyframe", "keyframe_names", "keyframe_by_index", "keyframe_by_name", "keyframe_from_flag"]

# How many keyframes a refusal lists: its one line stays readable for a model with hundreds.
_LISTED = 10


class UnknownKeyframe(Error, LookupError):
    """A keyframe the model does not have; the message lists those it has."""


def keyframe_names(model: mujoco.MjModel) -> list[str]:
    """The model's keyframes in index order, "" for an unnamed one."""
    return [mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_KEY, k) or "" for k in range(model.nkey)]


def _valid(names: list[str]) -> str:
    if not names:
        return "the model has no keyframes"
    listed = ", ".join(f"{k} '{name}'" if name else f"{k} (unnamed)" for k, name in enumerate(names[:_LISTED]))
    more = f", ... ({len(names)} in all)" if len(names) > _LISTED else ""
    return f"valid keyframes: {listed}{more}"


def keyframe_by_name(names: list[str], name: str) -> int:
    """The index of the keyframe called `name`; UnknownKeyframe naming the valid ones otherwise."""
    if name and name in names:
        return names.index(name)
    # The name may come from a peer: shown escaped and cut.
    raise UnknownKeyframe(f"no keyframe named '{shown(name)}'; {_valid(names)}")


def keyframe_by_index(names: list[str], index: int) -> int:
    """`index` itself when the model has that keyframe; UnknownKeyframe naming the valid ones otherwise."""
    if 0 <= index < len(names):
        return index
    raise UnknownKeyframe(f"no keyframe {index}; {_valid(names)}")


def keyframe_from_flag(names: list[str], text: str) -> int:
    """The keyframe a `--keyframe NAME|INDEX` flag names: a keyframe of that name, else one of that index."""
    if text in names and text:
        return names.index(text)
    if text.isdigit():
        return keyframe_by_index(names, int(text))
    return keyframe_by_name(names, text)
