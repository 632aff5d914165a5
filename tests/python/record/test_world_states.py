"""A batched server's per-world MujocoState bytes are protobuf's own, world field and mocap poses included."""

from types import SimpleNamespace

import numpy as np
import pytest

from coupler._proto.coupler_record_pb2 import MujocoState
from coupler.record.world_states import encode_world_state


@pytest.mark.parametrize("mocap_bodies", [0, 2])  # none: the poses left out
@pytest.mark.parametrize("world", [0, 1, 127, 128, 65_535])  # left out for 0; one, two and three varint bytes
def test_a_worlds_state_is_byte_for_byte_what_protobuf_writes(world, mocap_bodies):
    rng = np.random.default_rng(world)
    data = SimpleNamespace(time=0.25, qpos=rng.normal(size=9), qvel=rng.normal(size=8), act=np.zeros(0),
                           ctrl=rng.normal(size=2), mocap_pos=rng.normal(size=(mocap_bodies, 3)),
                           mocap_quat=rng.normal(size=(mocap_bodies, 4)))
    expected = MujocoState(time=0.25, step=40, qpos=data.qpos, qvel=data.qvel, ctrl=data.ctrl, world=world,
                           mocap_pos=data.mocap_pos.ravel(), mocap_quat=data.mocap_quat.ravel()).SerializeToString()
    assert encode_world_state(world, data, 40) == expected
