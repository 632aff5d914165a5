"""perf.rtt's slices: the order a floor group is measured in, and a row's runs summarised as medians with
the lowest and highest."""

import numpy as np
import pytest

import perf.rtt as rtt
from perf.rtt.measure import RowSpec, Run
from perf.common.spread import Spread
from perf.rtt.repetitions import Measured

SPEC = RowSpec("coupler", "static", "cpp", "ipc", "blocking")


def _run(samples, server_cpu=10.0, client_cpu=5.0, idle=1.0, rate=1000.0) -> Run:
    return Run(samples=np.asarray(samples, dtype=float), round_trips_per_second=rate, request_bytes=40,
               reply_bytes=60, client_cpu_us=client_cpu, server_cpu_us=server_cpu, server_round_trips=len(samples),
               server_idle_cpu_percent=idle)


def test_a_spread_is_the_median_with_the_lowest_and_highest():
    assert Spread.of([30.0, 10.0, 20.0]) == Spread(20.0, 10.0, 30.0)


def test_the_median_of_an_even_number_of_repetitions_is_one_of_them():
    assert Spread.of([10.0, 40.0]).median == 10.0


def test_a_figure_missing_from_any_repetition_has_no_spread():
    assert Spread.of([10.0, None]) is None


def test_a_rows_p50_is_the_median_of_its_repetitions_p50s():
    row = Measured(SPEC, [_run([1, 2, 3]), _run([10, 20, 30]), _run([4, 5, 6])])
    assert row.p50 == Spread(5.0, 2.0, 20.0)


def test_a_rows_tail_is_of_all_repetitions_round_trips_together():
    row = Measured(SPEC, [_run([1.0] * 100), _run([1.0] * 97 + [500.0] * 3)])
    assert row.latency.count == 200
    assert row.latency.max == 500.0
    assert row.latency.p99 == 500.0


def test_cpu_figures_are_medians_and_none_without_the_servers():
    row = Measured(SPEC, [_run([1], server_cpu=10.0, client_cpu=3.0), _run([1], server_cpu=30.0, client_cpu=4.0),
                          _run([1], server_cpu=20.0, client_cpu=5.0)])
    assert row.server_cpu_us == Spread(20.0, 10.0, 30.0)
    assert row.client_cpu_us == Spread(4.0, 3.0, 5.0)
    assert Measured(SPEC, [_run([1], server_cpu=None)]).server_cpu_us is None


def test_a_rows_idle_cpu_is_the_highest_repetitions():
    assert Measured(SPEC, [_run([1], idle=0.5), _run([1], idle=7.0)]).server_idle_cpu_percent == 7.0


def test_a_row_without_runs_is_refused():
    with pytest.raises(ValueError, match="no runs"):
        Measured(SPEC, [])


def test_the_full_run_measures_five_slices_and_the_short_run_more_shorter_ones_of_thousands():
    full, quick = rtt.parse_args([]), rtt.parse_args(["--quick"])
    assert (full.repetitions, full.count) == (5, 20000)
    assert quick.repetitions > 5 and quick.count >= 1000


def test_no_repetitions_are_refused(capsys):
    with pytest.raises(SystemExit):
        rtt.parse_args(["--repetitions", "0"])
    assert "--repetitions must be at least 1" in capsys.readouterr().err


def test_a_floor_group_alternates_rows_and_floor_each_slice_the_other_way_round():
    assert rtt.slice_plan(4, 2) == [[0, 1, rtt.FLOOR], [rtt.FLOOR, 0, 1], [0, 1, rtt.FLOOR], [rtt.FLOOR, 0, 1]]


def test_the_first_slice_starts_with_the_first_row_whose_frames_size_the_floor():
    assert rtt.slice_plan(1, 3)[0][0] == 0
