"""A Gymnasium action (the actuators' ctrl) is sent as the motor values whose ctrl, value / gear as the server
computes it, is the action: bit for bit for every float32 action, and the nearest any value gets for float64."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from coupler.gym.tasks.gymnasium_locomotion import motor_values

# The gears of Gymnasium's HalfCheetah, Hopper, Walker2d, Ant, Humanoid and Swimmer motors.
GEARS = [25.0, 30.0, 60.0, 90.0, 100.0, 120.0, 150.0, 200.0, 300.0]
bounded = settings(max_examples=500, deadline=None)


@given(st.floats(-1.0, 1.0, width=32), st.sampled_from(GEARS))
@bounded
def test_a_float32_action_comes_back_bit_for_bit(action, gear):
    value = motor_values(np.array([action]), np.array([gear]))
    assert value[0] / gear == action


@given(st.floats(-1.0, 1.0), st.sampled_from(GEARS))
@bounded
def test_no_value_comes_closer_to_a_float64_action(action, gear):
    value = motor_values(np.array([action]), np.array([gear]))[0]
    miss = abs(value / gear - action)
    for neighbour in (np.nextafter(value, np.inf), np.nextafter(value, -np.inf)):
        assert abs(neighbour / gear - action) >= miss
    assert miss <= np.spacing(abs(action))


def test_rows_of_actions_are_taken_value_by_value():
    actions = np.array([[0.5, -0.25], [1.0, 0.0]])
    np.testing.assert_array_equal(motor_values(actions, np.array([120.0, 30.0])), [[60.0, -7.5], [120.0, 0.0]])
