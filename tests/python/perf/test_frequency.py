"""perf.frequency on a tiny run: paced and unpaced points for both controllers, well-formed outputs."""

import numpy as np
import pytest

import perf.frequency as frequency
from perf.common import placement, plots
from perf.frequency.measure import Point, PointSpec
from perf.frequency.parts import part_frequencies
from perf.frequency.render import keeps_up, render

# The mobile scene has no arm, so the controllers skip the pick approach and a point takes a moment.
SETTINGS = frequency.Settings(steps_ms=(10.0,), seconds=0.1, unpaced_round_trips=20, scene="mobile",
                              repetitions=1)


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    points, seconds = frequency.measure(SETTINGS, tmp_path_factory.mktemp("frequency"))
    return frequency.to_result(SETTINGS, points, seconds)


def test_every_point_has_its_figures(result):
    assert {"benchmark", "measured_at", "duration_s", "host", "settings", "points"} <= result.keys()
    assert [(p["client"], p["pacing"]) for p in result["points"]] == [
        (client, pacing) for client in frequency.CLIENTS for pacing in frequency.PACINGS
    ]
    for point in result["points"]:
        assert point["target_hz"] == pytest.approx(100.0)
        assert point["control_hz"] > 0
        assert point["real_time_factor"] == pytest.approx(point["control_hz"] * 0.01)
        paced = point["pacing"] == "realtime"
        assert point["loop_round_trips"] == (10 if paced else 20)
        assert point["server_steps"] == point["loop_round_trips"]
        assert (point["deadlines_missed"] is not None) == paced


def test_every_point_has_the_lowest_and_highest_of_its_parts_around_its_frequency(result):
    for point in result["points"]:
        parts = point["control_hz_parts"]
        assert parts["low"] <= point["control_hz"] * 1.001 and point["control_hz"] <= parts["high"] * 1.001
        assert point["real_time_factor_parts"]["high"] == pytest.approx(parts["high"] * 0.01)


def test_the_run_says_where_its_processes_ran(result):
    assert result["settings"]["placement"] == placement.describe(True)
    assert result["settings"]["placement"] in render(result)


def test_the_table_has_a_row_per_step_and_client(result):
    rows = [line for line in render(result).splitlines() if line.startswith("|") and "10 |" in line]
    assert [row.split("|")[2].strip() for row in rows] == list(frequency.CLIENTS)


def test_the_plot_is_written(result, tmp_path):
    assert plots.frequency_plot(result, tmp_path / "f.png").read_bytes().startswith(b"\x89PNG")


def test_the_short_run_covers_four_step_sizes_from_five_to_half_a_millisecond():
    args = frequency.parse_args(["--quick"])
    assert len(args.steps) >= 4 and {5.0, 2.0, 1.0, 0.5} <= set(args.steps)


def _paced(control_hz, missed, steps=1000, target_hz=1000.0):
    return {"control_hz": control_hz, "target_hz": target_hz, "deadlines_missed": missed, "server_steps": steps}


def test_a_client_keeps_up_when_it_holds_the_frequency_and_misses_almost_no_deadline():
    assert keeps_up(_paced(995.0, 1))
    assert not keeps_up(_paced(980.0, 0))  # slower than real time
    assert not keeps_up(_paced(1000.0, 2))  # 0.2 % of the steps late


def test_one_late_step_in_a_run_too_short_for_a_tenth_of_a_percent_still_keeps_up():
    assert keeps_up(_paced(200.0, 1, steps=700, target_hz=200.0))
    assert not keeps_up(_paced(200.0, 2, steps=700, target_hz=200.0))


def test_a_loops_parts_are_its_round_trips_in_order_cut_in_equal_counts():
    # 10 round trips of 100 µs then 10 of 300 µs, in a loop of exactly their time: two parts, 10,000 and 3,333/s.
    parts = part_frequencies(np.array([100.0] * 10 + [300.0] * 10), 0.004, parts=2)
    assert parts == pytest.approx([10000.0, 10000.0 / 3])


def test_the_controllers_time_between_round_trips_is_shared_among_the_parts():
    # The loop took twice its round trips' time: every part's frequency halves, the whole loop's lies within.
    parts = part_frequencies(np.array([100.0] * 10 + [300.0] * 10), 0.008, parts=2)
    assert parts == pytest.approx([5000.0, 5000.0 / 3])
    assert min(parts) <= 20 / 0.008 <= max(parts)


def test_a_loop_shorter_than_the_parts_has_a_part_per_round_trip():
    assert len(part_frequencies(np.array([100.0, 200.0]), 0.0003)) == 2


def _run(round_trips, seconds, missed, part_hz):
    return Point(PointSpec(1.0, "cpp", "realtime"), target_hz=1000.0, control_hz=round_trips / seconds,
                 real_time_factor=round_trips / seconds / 1000.0, loop_round_trips=round_trips, loop_seconds=seconds,
                 server_steps=round_trips + 100, deadlines_missed=missed, part_hz=part_hz)


def test_a_points_runs_combine_into_their_total_frequency_with_every_part():
    point = Point.combined([_run(1000, 1.0, 1, [990.0, 1010.0]), _run(900, 1.0, 2, [880.0, 920.0])])
    assert point.control_hz == pytest.approx(950.0)
    assert point.real_time_factor == pytest.approx(0.95)
    assert (point.loop_round_trips, point.server_steps, point.deadlines_missed) == (1900, 2100, 3)
    assert point.part_hz == [990.0, 1010.0, 880.0, 920.0]
    assert point.repetitions == 2


def test_the_short_run_runs_each_point_once_and_the_full_run_three_times():
    assert frequency.parse_args(["--quick"]).repetitions == 1
    assert frequency.parse_args([]).repetitions == 3
