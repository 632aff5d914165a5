"""The action layout: handshake controls and ranges as a Box, events as thresholded dimensions."""

from __future__ import annotations

import copy

import numpy as np
import pytest

pytest.importorskip("gymnasium")
mujoco = pytest.importorskip("mujoco")

from coupler.controller.controls import Controls  # noqa: E402
from coupler.gym.spaces import ActionLayout  # noqa: E402
from coupler.mujoco.layout import scene_layout  # noqa: E402
from coupler.scenes import scene_path  # noqa: E402
from coupler.wire.messages import Range  # noqa: E402


@pytest.fixture(scope="module")
def handshake():
    return scene_layout(mujoco.MjModel.from_xml_path(str(scene_path("arm")))).handshake


def test_control_dimensions_map_minus_one_to_one_onto_each_controls_range(handshake):
    layout = ActionLayout(handshake)
    controls = Controls(handshake)
    ranges = handshake.objects["arm"].control_ranges
    action = np.array([-1.0, 1.0, 0.0, -1.0, 1.0, 0.5, -0.5, 0.0])
    layout.apply(action, controls)
    lows, highs = np.array([r.min for r in ranges]), np.array([r.max for r in ranges])
    expected = (lows + highs) / 2 + (highs - lows) / 2 * action[:7]
    np.testing.assert_allclose(controls["arm"], expected)
    assert controls["arm"][0] == pytest.approx(-2.8973) and controls["arm"][1] == pytest.approx(1.7628)


def test_a_limited_control_is_a_dimension_from_minus_one_to_one(handshake):
    space = ActionLayout(handshake).space
    assert (space.low[:7] == -1).all() and (space.high[:7] == 1).all()


@pytest.mark.parametrize("value, on", [(0.49, False), (0.5, True), (1.0, True), (0.0, False)])
def test_an_event_dimension_turns_its_event_on_from_one_half(handshake, value, on):
    layout = ActionLayout(handshake)
    controls = Controls(handshake)
    action = np.zeros(8)
    action[7] = value
    layout.apply(action, controls)
    assert controls.message().objects["arm"].events == {"gripper": on}


def test_a_control_without_a_range_is_unbounded_and_taken_as_it_is(handshake):
    unranged = copy.deepcopy(handshake)
    unranged.objects["arm"].control_ranges = [Range()] * 7
    space = ActionLayout(unranged).space
    assert np.isneginf(space.low[:7]).all() and np.isposinf(space.high[:7]).all()
    controls = Controls(unranged)
    ActionLayout(unranged).apply(np.full(8, 3.0), controls)
    np.testing.assert_array_equal(controls["arm"], np.full(7, 3.0))
