"""The part of a MuJoCo state a view shows: where every joint is (qpos), where the mocap bodies are and what the
controls ask (ctrl), at a simulated time; decoded from a `coupler.record.v1.MujocoState` and checked against the
model it is drawn with."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from google.protobuf.message import DecodeError

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.mocap_poses import MocapMismatch, MocapPoses, mocap_poses

if TYPE_CHECKING:
    import mujoco


class StateMismatch(ValueError):
    """A state that is not of the model being drawn: another scene's, or not a state at all."""


@dataclass(frozen=True)
class ShownState:
    time: float  # simulated seconds
    step: int
    qpos: np.ndarray
    ctrl: np.ndarray
    mocap: MocapPoses | None = None  # None: the mocap bodies where the model puts them (a state without their poses)


def decoded_state(payload: bytes, model: mujoco.MjModel) -> ShownState:
    """The state a serialized MujocoState holds; StateMismatch when it does not decode or fit `model`."""
    try:
        state = MujocoState.FromString(payload)
    except DecodeError:
        raise StateMismatch("a message on the state topic that is not a MuJoCo state") from None
    qpos = np.array(state.qpos)
    ctrl = np.array(state.ctrl)
    if len(qpos) != model.nq or len(ctrl) not in (0, model.nu):
        raise StateMismatch(f"a state of {len(qpos)} positions and {len(ctrl)} controls, not of the model drawn "
                            f"({model.nq} and {model.nu}): it comes from another scene")
    try:
        mocap = mocap_poses(state, model)
    except MocapMismatch as error:
        raise StateMismatch(f"{error}: it comes from another scene") from None
    return ShownState(state.time, state.step, qpos, ctrl if len(ctrl) else np.zeros(model.nu), mocap)


def world_of(payload: bytes) -> int:
    """The world a serialized MujocoState is of: a batched server (`--worlds N`) publishes one per world after each
    step, and a view shows world 0's; 0 for anything that does not decode, which `decoded_state` then reports."""
    try:
        return MujocoState.FromString(payload).world
    except DecodeError:
        return 0


def initial_state(model: mujoco.MjModel) -> ShownState:
    """The model at rest in its reference pose: what is shown before any state fits."""
    return ShownState(0.0, 0, model.qpos0.copy(), np.zeros(model.nu))
