"""A view draws a published state only when it is of the model drawn: another scene's, or bytes that are no state,
are told in one line naming the counts that do not fit."""

from __future__ import annotations

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")

from coupler._proto.coupler_record_pb2 import MujocoState  # noqa: E402
from coupler.view.shown_state import StateMismatch, decoded_state, initial_state, world_of  # noqa: E402

# Two hinges, one motor and one mocap body.
MODEL = """
<mujoco>
  <worldbody>
    <body name="target" mocap="true" pos="0 0 1"><geom size="0.05"/></body>
    <body name="upper"><joint name="shoulder" axis="0 1 0"/><geom size="0.1"/>
      <body name="lower" pos="0 0 -0.5"><joint name="elbow" axis="0 1 0"/><geom size="0.1"/></body>
    </body>
  </worldbody>
  <actuator><motor joint="shoulder"/></actuator>
</mujoco>
"""


@pytest.fixture(scope="module")
def model():
    return mujoco.MjModel.from_xml_string(MODEL)


def _state(**fields) -> bytes:
    return MujocoState(**fields).SerializeToString()


def test_a_state_of_the_model_drawn_is_shown_as_it_was_sent(model):
    shown = decoded_state(_state(time=0.25, step=5, qpos=[0.1, -0.2], ctrl=[0.3], mocap_pos=[1, 2, 3],
                                 mocap_quat=[1, 0, 0, 0]), model)
    assert (shown.time, shown.step) == (0.25, 5)
    np.testing.assert_array_equal(shown.qpos, [0.1, -0.2])
    np.testing.assert_array_equal(shown.ctrl, [0.3])
    np.testing.assert_array_equal(shown.mocap.positions, [[1, 2, 3]])


def test_a_state_without_controls_shows_them_at_zero_and_its_mocap_bodies_where_the_model_puts_them(model):
    shown = decoded_state(_state(qpos=[0.1, -0.2]), model)
    np.testing.assert_array_equal(shown.ctrl, [0.0])
    assert shown.mocap is None


def test_a_state_of_another_scene_names_both_counts(model):
    with pytest.raises(StateMismatch, match=r"a state of 3 positions and 0 controls, not of the model drawn "
                                            r"\(2 and 1\): it comes from another scene"):
        decoded_state(_state(qpos=[0.0, 0.0, 0.0]), model)


def test_mocap_poses_of_another_scene_are_told_so(model):
    with pytest.raises(StateMismatch, match="mocap position.*it comes from another scene"):
        decoded_state(_state(qpos=[0.0, 0.0], mocap_pos=[1, 2, 3, 4, 5, 6], mocap_quat=[1, 0, 0, 0] * 2), model)


def test_bytes_that_are_no_state_are_told_so(model):
    with pytest.raises(StateMismatch, match="not a MuJoCo state"):
        decoded_state(b"\xff\xff\xff", model)


def test_the_world_of_bytes_that_are_no_state_is_the_first():
    assert world_of(_state(world=3)) == 3
    assert world_of(b"\xff\xff\xff") == 0


def test_before_any_state_the_model_is_shown_at_rest(model):
    shown = initial_state(model)
    np.testing.assert_array_equal(shown.qpos, model.qpos0)
    np.testing.assert_array_equal(shown.ctrl, [0.0])
