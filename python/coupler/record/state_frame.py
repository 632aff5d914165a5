"""The MuJoCo state after a step as a serialized `coupler.record.v1.MujocoState`, written straight from
mjData's arrays by C++ (`coupler::encode_mujoco_state`, the one implementation: the lockstep hot path
publishes states with it too).

Building the protobuf message from NumPy arrays converts each value to a
Python float and costs several times as much as writing the packed doubles'
bytes directly. The bytes are the ones protobuf writes (proto3: fields in
number order, zero and empty fields left out, repeated doubles packed);
tested against it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from coupler import _native


def encode_state(time: float, step: int, qpos: np.ndarray, qvel: np.ndarray, act: np.ndarray,
                 ctrl: np.ndarray, mocap_pos: np.ndarray | None = None, mocap_quat: np.ndarray | None = None,
                 world: int = 0) -> bytes:
    """The state's bytes; `mocap_pos` and `mocap_quat` are mjData's (empty for a model without mocap bodies, and
    then left out), `world` which world of a batched server the state is of."""
    empty = _EMPTY
    return _native.encode_mujoco_state(time, step, qpos, qvel, act, ctrl,
                                       empty if mocap_pos is None else mocap_pos,
                                       empty if mocap_quat is None else mocap_quat, world)


def encode_data_state(data: Any, step: int, world: int = 0) -> bytes:
    """The state of mjData `data` after server step `step`, its mocap bodies' poses included."""
    return encode_state(data.time, step, data.qpos, data.qvel, data.act, data.ctrl, data.mocap_pos,
                        data.mocap_quat, world)


_EMPTY = np.zeros(0)
