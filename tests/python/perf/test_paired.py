"""perf.common.paired: figures of alternately measured slices, and the self-checks that report noise as
not measured instead of judging it."""

import pytest

from perf.common import paired
from perf.common.paired import Judgement
from perf.common.spread import Spread


def test_a_ratio_is_taken_slice_by_slice_not_of_medians():
    # Load swings both sides of every slice together: the slice ratios agree though the medians would not.
    assert paired.ratio([110.0, 220.0, 165.0], [100.0, 200.0, 150.0]) == Spread(1.1, 1.1, 1.1)


def test_a_ratio_reports_the_median_with_the_lowest_and_highest_slice():
    assert paired.ratio([100.0, 130.0, 120.0], [100.0, 100.0, 100.0]) == Spread(1.2, 1.0, 1.3)


def test_a_ratio_needs_as_many_slices_on_both_sides():
    with pytest.raises(ValueError, match="as many slices"):
        paired.ratio([1.0, 2.0], [1.0])


def test_a_ratio_with_a_missing_figure_is_none():
    assert paired.ratio([1.0, None], [1.0, 1.0]) is None


def test_a_difference_is_taken_slice_by_slice():
    assert paired.difference([12.0, 25.0, 14.0], [10.0, 20.0, 10.0]) == Spread(4.0, 2.0, 5.0)


def test_a_ratio_of_unpaired_figures_spans_the_widest_it_could_be():
    assert paired.bounds_of_ratio(Spread(100.0, 90.0, 110.0), Spread(50.0, 45.0, 55.0)) == Spread(
        2.0, 90.0 / 55.0, 110.0 / 45.0)


def test_a_row_faster_than_its_floor_by_more_than_its_spread_is_noisy():
    assert paired.ratio_to_floor(Spread(0.80, 0.78, 0.85), 1.15) is Judgement.NOISY


def test_a_row_faster_than_its_floor_within_its_spread_is_judged():
    # 0.97 is 0.03 under the floor, less than the spread of 0.06: a row about as fast as its floor.
    assert paired.ratio_to_floor(Spread(0.97, 0.94, 1.00), 1.15) is Judgement.MET


def test_a_median_ratio_below_the_lowest_is_noisy_though_its_spread_reaches_the_floor():
    # Two runs' floors read 41.8 and 54.3 µs slice to slice: a median of 0.91 with slices up to 1.08 is no
    # measurement of a row faster than its floor.
    assert paired.ratio_to_floor(Spread(0.91, 0.85, 1.08), 1.15) is Judgement.NOISY


def test_a_median_ratio_at_the_lowest_with_its_spread_reaching_the_floor_is_judged():
    assert not paired.below_floor(Spread(paired.LOWEST_RATIO, 0.90, 1.01))
    assert paired.below_floor(Spread(paired.LOWEST_RATIO - 0.001, 0.90, 1.01))


def test_a_ratio_whose_spread_crosses_its_target_is_noisy():
    assert paired.ratio_to_floor(Spread(1.12, 1.05, 1.20), 1.15) is Judgement.NOISY


def test_a_ratio_wholly_under_its_target_is_met():
    assert paired.ratio_to_floor(Spread(1.08, 1.05, 1.12), 1.15) is Judgement.MET


def test_a_ratio_wholly_over_its_target_is_missed():
    assert paired.ratio_to_floor(Spread(1.30, 1.20, 1.40), 1.15) is Judgement.MISSED


def test_a_figure_that_must_reach_a_limit_is_noisy_when_its_spread_crosses_it():
    assert paired.at_least(Spread(0.92, 0.85, 0.95), 0.9) is Judgement.NOISY
    assert paired.at_least(Spread(0.95, 0.92, 0.97), 0.9) is Judgement.MET
    assert paired.at_least(Spread(0.80, 0.75, 0.85), 0.9) is Judgement.MISSED


def test_a_cost_below_zero_by_more_than_its_spread_is_negative():
    assert paired.negative(Spread(-10.0, -12.0, -8.0))
    assert not paired.negative(Spread(-1.0, -3.0, 2.0))
    assert not paired.negative(Spread(5.0, 4.0, 6.0))


def test_a_single_slice_has_no_spread_so_any_dip_under_the_floor_is_noisy():
    assert paired.ratio_to_floor(Spread(0.99, 0.99, 0.99), 1.15) is Judgement.NOISY


def test_the_middle_slices_leave_out_the_lowest_and_highest_of_five_or_more():
    assert paired.middle([1.10, 0.59, 1.12, 1.11, 2.49, 1.09, 1.13]) == Spread(1.11, 1.09, 1.13)


def test_under_five_slices_every_slice_is_in_the_middle():
    assert paired.middle([1.0, 1.5, 1.2, 1.1]) == Spread(1.1, 1.0, 1.5)


def test_one_stray_slice_each_way_does_not_make_a_ratio_wide():
    assert not paired.spread_wide([1.28, 1.23, 1.29, 1.22, 0.59, 1.34, 2.49])


def test_middle_slices_further_apart_than_the_limit_are_wide():
    assert paired.spread_wide([1.73, 2.80, 3.83, 1.75, 4.16, 1.75, 4.15])


def test_middle_slices_just_within_the_limit_are_not_wide():
    low = 1.0
    high = low * (1 + paired.MOST_MIDDLE_SPREAD)
    assert not paired.spread_wide([0.5, low, 1.1, high, 3.0])
    assert paired.spread_wide([0.5, low, 1.1, high + 0.01, 3.0])
