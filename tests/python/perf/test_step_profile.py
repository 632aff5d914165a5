"""perf.step_profile: every part of Session.step timed against the recorded server, and its own cost."""

import pytest

import perf.step_profile as step_profile


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    return step_profile.measure(50, 2, tmp_path_factory.mktemp("step_profile"))


def test_every_part_the_whole_step_and_the_plain_exchange_are_timed_in_every_repetition(figures):
    assert list(figures) == [*step_profile.PARTS, "whole step", "plain send + recv"]
    assert all(len(values) == 2 and min(values) > 0 for values in figures.values())


def test_the_steps_own_cost_is_the_whole_step_less_the_plain_exchange():
    figures = {part: [1.0] for part in step_profile.PARTS} | {"whole step": [90.0, 100.0, 95.0],
                                                              "plain send + recv": [60.0, 70.0, 80.0]}
    assert "whole step minus plain send + recv: 25.0 µs" in step_profile.render(figures, 10)
