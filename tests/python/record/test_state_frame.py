"""The hand-written MujocoState bytes are protobuf's own."""

import numpy as np
import pytest

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.state_frame import encode_state


@pytest.mark.parametrize("time, step, sizes, mocap_bodies", [
    (0.0, 0, (0, 0, 0, 0), 0),
    (0.002, 1, (16, 15, 0, 8), 0),
    (123.456, 2**40, (200, 199, 3, 30), 7),  # lengths beyond one varint byte
    (-1.5, 7, (1, 1, 1, 1), 1),
])
def test_the_encoded_state_is_byte_for_byte_what_protobuf_writes(time, step, sizes, mocap_bodies):
    rng = np.random.default_rng(step)
    qpos, qvel, act, ctrl = (rng.normal(size=n) for n in sizes)
    mocap_pos, mocap_quat = rng.normal(size=(mocap_bodies, 3)), rng.normal(size=(mocap_bodies, 4))
    expected = MujocoState(time=time, step=step, qpos=qpos, qvel=qvel, act=act, ctrl=ctrl,
                           mocap_pos=mocap_pos.ravel(), mocap_quat=mocap_quat.ravel()).SerializeToString()
    assert encode_state(time, step, qpos, qvel, act, ctrl, mocap_pos, mocap_quat) == expected
