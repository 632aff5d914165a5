"""perf.rtt's self-check column: a row's figures are "ok", or "not measured: noisy" with the reason, from its
ratios' medians and spreads alone."""

from perf.rtt.render import self_check


def spread(median, low=None, high=None):
    return {"median": median, "low": median if low is None else low, "high": median if high is None else high}


def row(peer="coupler", scene="static", client="cpp", transport="ipc", vs_floor=spread(1.08, 1.05, 1.12),
        vs_recorded=None):
    return {"peer": peer, "scene": scene, "client": client, "transport": transport, "receive": "blocking",
            "slices": {"p50_us": [1.0]}, "vs_floor": {"p50": vs_floor},
            "vs_recorded": None if vs_recorded is None else {"p50": vs_recorded}}


def test_a_row_above_its_floor_with_its_spread_clear_of_its_target_is_ok():
    assert self_check(row()) == "ok"


def test_a_median_below_the_floor_is_noisy_though_the_spread_reaches_one():
    assert self_check(row(peer="recorded", vs_floor=spread(0.91, 0.85, 1.08))) == (
        "not measured: noisy (below its floor)")


def test_a_row_below_its_floor_by_more_than_its_spread_is_noisy():
    assert self_check(row(scene="arm", vs_floor=spread(0.97, 0.96, 0.98))) == "not measured: noisy (below its floor)"


def test_coupler_below_the_minimal_server_is_noisy():
    assert self_check(row(vs_recorded=spread(0.93, 0.90, 1.01))) == "not measured: noisy (below the minimal server)"


def test_a_targeted_ratio_whose_slices_cross_the_target_is_noisy():
    # coupler's static C++ row on ipc: p50 at most 1.15 × the floor.
    assert self_check(row(vs_floor=spread(1.12, 1.05, 1.20))) == "not measured: noisy (× its floor crosses 1.15)"


def test_a_ratio_no_target_judges_is_not_checked_against_one():
    assert self_check(row(scene="arm", vs_floor=spread(1.12, 1.05, 1.20))) == "ok"


def test_the_python_rows_target_is_the_python_limit():
    assert self_check(row(client="python", vs_floor=spread(1.15, 1.12, 1.18))) == "ok"
    assert self_check(row(client="python", vs_floor=spread(1.18, 1.12, 1.25))) == (
        "not measured: noisy (× its floor crosses 1.2)")


def test_a_ratio_whose_middle_slices_spread_wide_is_noisy_though_no_target_judges_it():
    slices = [1.73, 2.80, 3.83, 1.75, 4.16, 1.75, 4.15]
    assert self_check(row(scene="arm", vs_floor=spread(2.80, 1.73, 4.16)), {"vs_floor": slices}) == (
        "not measured: noisy (middle slices spread 1.75–4.15)")


def test_a_ratio_with_one_stray_slice_each_way_is_ok():
    slices = [1.34, 1.23, 1.28, 1.29, 1.29, 1.22, 0.59]
    assert self_check(row(scene="arm", vs_floor=spread(1.28, 0.59, 1.34)), {"vs_floor": slices}) == "ok"


def test_the_slices_of_the_ratio_to_the_minimal_server_are_checked_too():
    slices = {"vs_floor": [1.1] * 7, "vs_recorded": [1.0, 1.0, 1.3, 1.3, 1.3, 1.0, 1.0]}
    assert self_check(row(vs_recorded=spread(1.0, 1.0, 1.3)), slices) == (
        "not measured: noisy (middle slices spread 1.00–1.30)")


def test_a_result_measured_before_slices_has_no_self_check():
    old = row()
    del old["slices"]
    assert self_check(old) == "–"
