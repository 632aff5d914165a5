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

import numpy as np

from coupler import _native


def encode_state(time: float, step: int, qpos: np.ndarray, qvel: np.ndarray, act: np.ndarray,
                 ctrl: np.ndarray) -> bytes:
    return _native.encode_mujoco_state(time, step, qpos, qvel, act, ctrl)
